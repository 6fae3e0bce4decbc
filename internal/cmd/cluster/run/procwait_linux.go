package run

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// awaitExit blocks until the process has exited and reports true, leaving it to be
// reaped by its Wait; false when it cannot tell.
func awaitExit(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			return err == nil
		}
	}
}
