package cli_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// maxRSS is the peak memory a bad input may cost the process.
const maxRSS = 256 << 20

// badCase is one bad input: a file put into a copy of examples/payments as bad/<name>
// (or built there by setup), or standard input.
type badCase struct {
	name  string
	data  []byte                              // the file, when it is one
	setup func(t *testing.T, bad string) bool // builds bad/ itself; false skips the case
	stdin []byte                              // run with --manifests - and this input
	want  []string                            // patterns stderr must match besides the name
}

// TestBadInput runs butlerctl on every case of the bad-input corpus (testdata/badinput and
// the cases below that git cannot hold): exit 2, the file named, peak memory under 256
// MiB, no file changed. The worst memory and time are logged.
func TestBadInput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("rusage and the device, FIFO and socket cases are Linux's")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(builtBinaries(t), "butlerctl")
	rss := buildRSSRun(t)
	cases := append(corpusCases(t, filepath.Join(root, "testdata", "badinput")), generatedCases()...)
	if len(cases) < 100 {
		t.Fatalf("%d cases; the corpus must hold at least 100", len(cases))
	}
	var worstMem, worstTime badRun
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, ok := runBadCase(t, rss, bin, filepath.Join(root, "examples", "payments"), c)
			if !ok {
				return
			}
			if r.rss > worstMem.rss {
				worstMem = r
			}
			if r.wall > worstTime.wall {
				worstTime = r
			}
		})
	}
	t.Logf("%d cases; worst peak memory %.1f MiB (%s); slowest %v (%s)", len(cases),
		float64(worstMem.rss)/(1<<20), worstMem.name, worstTime.wall.Round(time.Millisecond), worstTime.name)
}

const rssFileEnv = "BADINPUT_RSS_FILE"

// rssRunSource is rssrun BINARY ARGS...: it runs the binary and writes the child's peak
// memory in bytes to $BADINPUT_RSS_FILE. A child started by the test process itself would
// report the test process's own peak (Linux carries the memory high-water mark of the
// process it was cloned from across exec), so a small process starts it instead. It is a
// program of its own, built once without the race detector: the test binary in that role
// started slowly under -race for each of the cases, and its own high-water mark (about
// 100 MiB) was the floor of every peak measured.
const rssRunSource = `package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, "rssrun:", err)
		os.Exit(125)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	if err := os.WriteFile(os.Getenv("` + rssFileEnv + `"), []byte(strconv.FormatInt(rss, 10)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "rssrun:", err)
		os.Exit(125)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
`

// buildRSSRun builds rssRunSource as a module of its own (the standard library only) and
// returns the program's path.
func buildRSSRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{"go.mod": "module rssrun\n\ngo 1.22\n", "main.go": rssRunSource} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "rssrun")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build rssrun: %v\n%s", err, out)
	}
	return bin
}

type badRun struct {
	name string
	rss  int64
	wall time.Duration
}

func runBadCase(t *testing.T, rssRun, bin, payments string, c badCase) (badRun, bool) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "payments")
	if err := copyDir(payments, tree); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(tree, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	switch {
	case c.setup != nil:
		if !c.setup(t, bad) {
			return badRun{}, false
		}
	case c.data != nil:
		if err := os.WriteFile(filepath.Join(bad, c.name), c.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := hashTree(t, tree)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := []string{"cluster", "create", "web", "--team", "payments", "--environment", "prod",
		"--as", "alice@example.com", "--write", "--manifests", "payments"}
	if c.stdin != nil {
		args = append(args, "--manifests", "-")
	}
	rssFile := filepath.Join(t.TempDir(), "rss")
	cmd := exec.CommandContext(ctx, rssRun, append([]string{bin}, args...)...)
	cmd.Env = append(os.Environ(), rssFileEnv+"="+rssFile)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "HOME="+dir)
	cmd.Stdin = bytes.NewReader(c.stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("did not return within 30s: %s", stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("exit status %v, want 2\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	msg := stderr.String()
	where := "payments/bad/" + c.name
	if c.stdin != nil {
		where = "<stdin>"
	}
	if !strings.Contains(msg, where) {
		t.Errorf("stderr does not name %s:\n%s", where, msg)
	}
	for _, w := range c.want {
		if !regexp.MustCompile(w).MatchString(msg) {
			t.Errorf("stderr does not match %q:\n%s", w, msg)
		}
	}
	b, err := os.ReadFile(rssFile)
	if err != nil {
		t.Fatalf("no peak memory recorded: %v", err)
	}
	rss, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if rss > maxRSS {
		t.Errorf("peak memory %d MiB, limit %d MiB", rss>>20, maxRSS>>20)
	}
	if after := hashTree(t, tree); after != before {
		t.Errorf("files changed:\nbefore %s\nafter  %s", before, after)
	}
	t.Logf("peak memory %.1f MiB, %v", float64(rss)/(1<<20), wall.Round(time.Millisecond))
	return badRun{c.name, rss, wall}, true
}

// corpusCases reads testdata/badinput: one case per file, "# want: RE" lines (or a
// <name>.want file) adding patterns.
func corpusCases(t *testing.T, dir string) []badCase {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []badCase
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".want") || n == "README.md" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		c := badCase{name: n, data: data}
		wants := string(data)
		if w, err := os.ReadFile(filepath.Join(dir, n+".want")); err == nil {
			wants = string(w)
		}
		for _, l := range strings.Split(wants, "\n") {
			if w, ok := strings.CutPrefix(l, "# want: "); ok {
				c.want = append(c.want, w)
			} else if strings.HasSuffix(n, ".json") && l != "" {
				c.want = append(c.want, l)
			}
		}
		out = append(out, c)
	}
	return out
}

// hashTree hashes every path, mode and content below dir, symlinks by target and
// special files by kind, without reading them.
func hashTree(t *testing.T, dir string) string {
	h := sha256.New()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil //nolint:nilerr // an unreadable entry is hashed by name only
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		h.Write([]byte(p + "\x00" + fi.Mode().String() + "\x00"))
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			h.Write([]byte(target))
		case fi.Mode().IsRegular() && fi.Size() < 64<<20:
			b, _ := os.ReadFile(p)
			h.Write(b)
		case fi.Mode().IsRegular():
			h.Write([]byte(fi.ModTime().String()))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
