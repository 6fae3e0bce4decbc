//go:build unix

package fileio

import (
	"os"
	"os/signal"
	"syscall"
)

// releaseOnSignal removes the locks (by remove, which runs once) if the process is
// interrupted while it holds them, Ctrl-C in the middle of a merge, and then lets the
// signal take its course: a lock file left behind would stop every later kubectl, which
// never waits for one. The returned function ends the watch.
func releaseOnSignal(remove func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			remove()
			signal.Stop(ch)
			_ = syscall.Kill(os.Getpid(), s.(syscall.Signal))
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
