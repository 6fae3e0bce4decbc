package run

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Every terminating signal interrupts the run, so the cleanup runs: a closed terminal or a
// dropped ssh session (SIGHUP) and Ctrl-\ (SIGQUIT) as much as a cancelled CI job (SIGINT,
// SIGTERM).
func TestEveryTerminatingSignalInterrupts(t *testing.T) {
	all := []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
	// Caught here too, so a signal notify misses fails the test instead of ending it.
	guard := make(chan os.Signal, len(all))
	signal.Notify(guard, all...)
	defer signal.Stop(guard)
	ch, stop := notify()
	defer stop()
	for _, s := range all {
		if err := syscall.Kill(os.Getpid(), s.(syscall.Signal)); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-ch:
			if got != s {
				t.Errorf("sent %v, the run got %v", s, got)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%v did not interrupt the run", s)
		}
	}
}

// A write to a stderr whose reader is gone (a dropped ssh session without a terminal) does
// not end the run before its cleanup: the test binary, started again as the child, writes
// to such a pipe during a run, then says it is still there.
func TestWriteToAGonePipeDoesNotEndTheRun(t *testing.T) {
	if path := os.Getenv("BUTLER_TEST_SIGPIPE_CHILD"); path != "" {
		_, stop := notify()
		defer stop()
		fmt.Fprintln(os.Stderr, "Interrupted (hangup): cleaning up")
		if err := os.WriteFile(path, []byte("still running\n"), 0o600); err != nil {
			os.Exit(3)
		}
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before the child writes
	defer w.Close()
	survived := filepath.Join(t.TempDir(), "survived")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteToAGonePipeDoesNotEndTheRun$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BUTLER_TEST_SIGPIPE_CHILD="+survived)
	cmd.Stderr = w
	cmd.WaitDelay = 10 * time.Second
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		err = <-done
	}
	if _, serr := os.Stat(survived); serr != nil {
		t.Fatalf("the write to a gone stderr ended the process (%v): the cleanup would not run", err)
	}
}
