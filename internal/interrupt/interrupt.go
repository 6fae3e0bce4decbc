// Package interrupt gives a command a context that the first Ctrl-C (or SIGTERM) cancels,
// so work in flight can finish, while a second signal ends the process as usual. It is a
// package of its own so that what imports the command layer's Factory does not take in a
// signal handler (and its goroutine) with it.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Graceful is ctx, cancelled by the first interrupt; stop releases the handler.
func Graceful(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal ends the process
	}()
	return ctx, stop
}
