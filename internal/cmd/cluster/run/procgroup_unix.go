//go:build unix

package run

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// group is COMMAND's own process group (its pid is the group's id), so an interrupt, the
// kill after KillAfter and the end of the run reach every process COMMAND started (a
// `sh -c` child holding stdout, a `| tee` in COMMAND), not only COMMAND's pid.
type group struct {
	p *os.Process
	// tty is the terminal whose foreground the group was given, -1 for none.
	tty int
}

// inGroup starts cmd in a process group of its own. When its stdin is a terminal whose
// foreground this process is, that group becomes the terminal's foreground, so COMMAND
// can still read the terminal (a background group reading it would be stopped) and a
// Ctrl-C there reaches all of COMMAND's processes.
func inGroup(cmd *exec.Cmd, in io.Reader) (*group, error) {
	attr := &syscall.SysProcAttr{Setpgid: true}
	tty := -1
	if f, ok := in.(*os.File); ok {
		fd := int(f.Fd())
		if pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pgrp == syscall.Getpgrp() {
			attr.Foreground, attr.Ctty, tty = true, fd, fd
		}
	}
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &group{p: cmd.Process, tty: tty}, nil
}

// signal sends s to every process of the group.
func (g *group) signal(s os.Signal) {
	if sig, ok := s.(syscall.Signal); ok {
		_ = syscall.Kill(-g.p.Pid, sig)
	}
}

// kill ends every process of the group.
func (g *group) kill() { _ = syscall.Kill(-g.p.Pid, syscall.SIGKILL) }

// ended is called once COMMAND has exited, before it is reaped (its pid, the group's id,
// cannot be taken by another process meanwhile): what COMMAND left running is killed, and
// the terminal given to the group is taken back.
func (g *group) ended() {
	g.kill()
	if g.tty < 0 {
		return
	}
	// Taking the terminal back from the background group this process now is: SIGTTOU
	// would stop it, unless ignored.
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(g.tty, unix.TIOCSPGRP, syscall.Getpgrp())
}
