package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built holds butlerctl and butleradm built once for the test binary's run (builtBinaries).
var built struct {
	once sync.Once
	dir  string
	out  []byte
	err  error
}

// builtBinaries returns a directory holding butlerctl and butleradm, built once per run of
// the test binary from cmd/ and without the race detector, for the tests that run the
// binaries as processes of their own (the screens, the concurrent writes, the bad inputs).
// Under -race the test binary in their place started slowly in each of several hundred
// runs; no goroutine of the test shares memory with those processes, so the race detector
// has nothing to find between them and the test, and the binaries' own concurrency is
// tested under it in their packages. The directory is removed after the tests
// (withBuiltBinaries).
func builtBinaries(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		root, err := filepath.Abs("../..")
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "butler-cli-bin-"); built.err != nil {
			return
		}
		build := exec.Command("go", "build", "-o", built.dir+string(filepath.Separator), "./cmd/butlerctl", "./cmd/butleradm")
		build.Dir = root
		built.out, built.err = build.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.dir
}

// withBuiltBinaries runs the tests and then removes what builtBinaries built.
type withBuiltBinaries struct{ m interface{ Run() int } }

func (w withBuiltBinaries) Run() int {
	code := w.m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	return code
}
