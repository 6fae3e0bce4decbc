package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileRegularAndSymlink(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(p, []byte("kind: Team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{p, link} {
		b, err := ReadFile(name, 64)
		if err != nil || string(b) != "kind: Team\n" {
			t.Fatalf("ReadFile(%s) = %q, %v", name, b, err)
		}
	}
}

func TestReadFileLimitCountsBytesRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 65)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, 64); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Fatalf("want ErrTooLarge naming the file, got %v", err)
	}
	if b, err := ReadFile(p, 65); err != nil || len(b) != 65 {
		t.Fatalf("at the limit: %d bytes, %v", len(b), err)
	}
}

func TestReadFileRefusesDevicesAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for name, kind := range map[string]string{zero: "a character device", fifo: "a FIFO"} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(name, 1<<20); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), kind) {
				t.Errorf("%s: want %q refused, got %v", name, kind, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: ReadFile blocked", name)
		}
	}
	if _, err := ReadFile(dir, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v", err)
	}
}

func TestReadAll(t *testing.T) {
	if _, err := ReadAll(strings.NewReader("abcdef"), 5); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "5 bytes") {
		t.Fatalf("got %v", err)
	}
	if Size(256<<20) != "256 MiB" || Size(1000) != "1000 bytes" {
		t.Fatal(Size(256 << 20))
	}
}
