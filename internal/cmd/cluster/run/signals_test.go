//go:build unix

package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
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

// COMMAND's children do not outlive it: a `sh -c` that leaves a process running (which
// holds stdout, so a `| tee` after cluster run would wait for it) has it killed when it
// exits, before the cluster is cleaned up.
func TestWhatCommandLeavesRunningIsKilled(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	r, _ := commandRunner(t, "sh", "-c", `sleep 600 & echo $! > "$0"`, pidFile)
	status, err := r.exec(context.Background(), &v1alpha1.TenantCluster{}, os.DevNull)
	if status != 0 {
		t.Errorf("exit %d, %v", status, err)
	}
	if pid := readPid(t, pidFile, 0); !ends(pid) {
		t.Errorf("the command's child %d is still running", pid)
	}
}

// An interrupt reaches every process of COMMAND, and none is left once the run returns:
// COMMAND's child as much as COMMAND.
func TestAnInterruptReachesWhatCommandStarted(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	r, sig := commandRunner(t, "sh", "-c", `sleep 600 & echo $! > "$0"; wait`, pidFile)
	// The interrupt's message is written while COMMAND's stdout is copied: stderr is a
	// file, as a process's is, not a buffer both would write.
	errOut, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errOut.Close()
	r.o.IO.ErrOut = errOut
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go r.interrupts(cancel, done)
	type result struct {
		status int
		err    error
	}
	ran := make(chan result, 1)
	go func() {
		status, err := r.exec(ctx, &v1alpha1.TenantCluster{}, os.DevNull)
		ran <- result{status, err}
	}()
	pid := readPid(t, pidFile, time.Minute) // the command runs
	sig <- syscall.SIGTERM
	select {
	case got := <-ran:
		if got.status != 128+int(syscall.SIGTERM) {
			t.Errorf("exit %d, %v; want %d", got.status, got.err, 128+int(syscall.SIGTERM))
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not return after the interrupt")
	}
	if !ends(pid) {
		t.Errorf("the command's child %d is still running", pid)
	}
}

// commandRunner is a runner of COMMAND args, with output to buffers (so pipes a left
// process could hold) and a KillAfter short enough for the test.
func commandRunner(t *testing.T, args ...string) (*runner, chan os.Signal) {
	t.Helper()
	old := KillAfter
	KillAfter = 3 * time.Second
	t.Cleanup(func() { KillAfter = old })
	ios, _, _, _ := iostreams.Test()
	o := &Options{Command: args}
	o.IO = ios
	sig := make(chan os.Signal, 1)
	return &runner{o: o, sig: sig, abandon: make(chan struct{})}, sig
}

// readPid reads the pid a command wrote, waiting up to wait for it; the process is
// killed when the test ends, whatever the test found.
func readPid(t *testing.T, path string, wait time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		b, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command wrote no pid to %s: %v", path, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ends reports whether pid ends within 30 s (a signal takes effect when the process is
// next scheduled; on a loaded machine that is not at once).
func ends(pid int) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !running(pid) {
			return true
		}
	}
	return false
}

// running reports whether pid is a process that has not ended (a zombie has).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil && !os.IsNotExist(err)
	}
	// pid (comm) state ...: the state follows the last ')'.
	rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
	f := strings.Fields(rest)
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
