//go:build unix

package output

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// A template file is read bounded: a FIFO is refused instead of waited on, /dev/zero
// instead of read until memory runs out, and a file past the limit by its size; each a
// usage error (exit 2) naming the file and why.
func TestTemplateFileReadIsBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", maxTemplateBytes+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{fifo, "read " + fifo + ": not a regular file: it is a FIFO"},
		{"/dev/zero", "read /dev/zero: not a regular file: it is a character device"},
		{big, "read " + big + ": too large: more than 1 MiB"},
	} {
		for _, family := range []string{"go-template-file", "jsonpath-file"} {
			done := make(chan error, 1)
			go func() {
				_, _, err := run(t, listSpec, doc(), "-o", family+"="+c.file)
				done <- err
			}()
			select {
			case err := <-done:
				if cmdutil.CodeOf(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) {
					t.Errorf("-o %s=%s: exit %d, %v; want exit 2 and %q", family, c.file, cmdutil.CodeOf(err), err, c.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("-o %s=%s: still reading after 10s", family, c.file)
			}
		}
	}
}
