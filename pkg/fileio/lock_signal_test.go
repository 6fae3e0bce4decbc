//go:build unix

package fileio

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A run interrupted while it holds a lock (Ctrl-C during a merge) removes the lock file
// before it dies: left behind, it would stop every later kubectl. The test runs itself as
// the interrupted process.
func TestLockRemovedOnInterrupt(t *testing.T) {
	if p := os.Getenv("FILEIO_HOLD_LOCK"); p != "" {
		if _, err := Lock(context.Background(), []string{p}, time.Second); err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
		fmt.Println("locked")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "config")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockRemovedOnInterrupt$")
	cmd.Env = append(os.Environ(), "FILEIO_HOLD_LOCK="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("the helper said %q", line)
	}
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatalf("no lock while held: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
		t.Errorf("the helper ended with %v, want killed by SIGINT", err)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("the lock is still there after the interrupt: %v", err)
	}
}
