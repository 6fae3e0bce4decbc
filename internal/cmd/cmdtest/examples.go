package cmdtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// PaymentsDir is a copy of the worked example (examples/payments) in a temporary
// directory, for a test whose command writes the manifests it works on.
func PaymentsDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", "payments")
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}
