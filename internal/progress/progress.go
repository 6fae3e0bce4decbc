// Package progress shows how a long command is getting on, on stderr: on a terminal one
// status line redrawn in place; piped, plain lines (a log a person or CI can read); with
// structured output (-o json and the like) piped, nothing, so consumers see only stdout.
// What to say and when stays with the command (migrate counts clusters, cluster create
// --wait follows a phase); how it is written lives here.
package progress

import (
	"fmt"
	"io"
	"sync"

	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
)

// Mode is how progress is written.
type Mode int

const (
	// Off writes nothing.
	Off Mode = iota
	// Lines writes each line on its own, for logs.
	Lines
	// Redraw keeps one status line, rewritten in place on a terminal.
	Redraw
)

// clearLine returns the cursor to the line's start and erases it.
const clearLine = "\r\x1b[K"

// ModeFor picks the mode: Redraw when stderr is a terminal (stdout, which structured
// output goes to, is not disturbed), else Lines, or Off for structured output.
func ModeFor(s *iostreams.IOStreams, structured bool) Mode {
	switch {
	case s.IsStderrTTY():
		return Redraw
	case structured:
		return Off
	}
	return Lines
}

// Reporter writes progress; safe for concurrent use.
type Reporter struct {
	mu    sync.Mutex
	w     io.Writer
	mode  Mode
	shown bool // a status line is on screen
	ended bool
}

// New returns a reporter writing to the streams' stderr in mode.
func New(s *iostreams.IOStreams, mode Mode) *Reporter {
	return &Reporter{w: s.ErrOut, mode: mode}
}

// NewWriter is New over any writer, for tests and callers without streams.
func NewWriter(w io.Writer, mode Mode) *Reporter { return &Reporter{w: w, mode: mode} }

// Mode is the reporter's mode.
func (r *Reporter) Mode() Mode { return r.mode }

// Status redraws the status line (Redraw mode only; a no-op otherwise or after End).
func (r *Reporter) Status(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mode != Redraw || r.ended {
		return
	}
	fmt.Fprintf(r.w, clearLine+format, a...)
	r.shown = true
}

// Line writes one line (Lines mode only; a no-op otherwise or after End).
func (r *Reporter) Line(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mode != Lines || r.ended {
		return
	}
	fmt.Fprintf(r.w, format+"\n", a...)
}

// End stops the reporter: a status line on screen is kept (ended with a newline) when
// keep, else erased, so what the command says next starts on a clean line.
func (r *Reporter) End(keep bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return
	}
	r.ended = true
	if r.mode != Redraw {
		return
	}
	if keep && r.shown {
		fmt.Fprintln(r.w)
		return
	}
	fmt.Fprint(r.w, clearLine)
}
