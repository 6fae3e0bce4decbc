//go:build unix

package providerutil

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The credential readers read regular files only, bounded by the bytes they read: a
// symlink to /dev/zero or a FIFO is refused at once, not read until memory runs out or
// waited on forever.
func TestReadRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.env")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.env")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flags := range []CredentialFlags{
		{EnvFile: zero}, {File: fifo}, {FromFiles: []string{"kubeconfig=" + zero}},
	} {
		done := make(chan error, 1)
		go func() { _, err := flags.Read(nil, nil); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%+v: %v", flags, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%+v: still reading after 10s", flags)
		}
	}
}
