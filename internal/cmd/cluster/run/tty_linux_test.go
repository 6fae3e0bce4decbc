package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Run from a terminal, COMMAND in its own process group can still read the terminal (a
// background group reading it would be stopped, and the run would hang), and the terminal
// comes back to cluster run once COMMAND exits. The test binary, started again as the
// child in a session of its own on a new pseudo-terminal, is cluster run.
func TestCommandReadsTheTerminal(t *testing.T) {
	if out := os.Getenv("BUTLER_TEST_TTY_CHILD"); out != "" {
		os.Exit(ttyChild(out))
	}
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0)
	}
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer tty.Close()
	out := filepath.Join(t.TempDir(), "read")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCommandReadsTheTerminal$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BUTLER_TEST_TTY_CHILD="+out)
	cmd.Stdin = tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := master.Write([]byte("typed\n")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatal("the run did not end: COMMAND could not read the terminal")
	}
	b, _ := os.ReadFile(out)
	if err != nil || string(b) != "typed\nrestored\n" {
		t.Errorf("child: %v; it wrote %q, want the line typed and the terminal taken back", err, b)
	}
}

// ttyChild runs a COMMAND that reads a line from the terminal, then says whether the
// terminal is this process group's again.
func ttyChild(out string) int {
	ios, _, _, _ := iostreams.Test()
	ios.In, ios.Out, ios.ErrOut = os.Stdin, os.Stderr, os.Stderr
	o := &Options{Command: []string{"sh", "-c", `read line; echo "$line" > "$0"`, out}}
	o.IO = ios
	r := &runner{o: o, sig: make(chan os.Signal), abandon: make(chan struct{})}
	if status, err := r.exec(context.Background(), &v1alpha1.TenantCluster{}, os.DevNull); status != 0 || err != nil {
		return 1
	}
	f, err := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return 1
	}
	defer f.Close()
	if pgrp, err := unix.IoctlGetInt(0, unix.TIOCGPGRP); err == nil && pgrp == syscall.Getpgrp() {
		fmt.Fprintln(f, "restored")
	}
	return 0
}
