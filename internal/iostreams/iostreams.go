// Package iostreams holds the standard streams a command writes to, and what it knows
// about them (terminal or not, colour or not), so tests can swap them.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
)

// IOStreams are a command's input, output and error output.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY  bool
	stdoutTTY bool
	stderrTTY bool
	colorOff  bool
	width     int
	hints     bool
}

// System returns the process's streams; colour is on only when stdout is a terminal and
// neither NO_COLOR nor BUTLER_NO_COLOR is set.
func System() *IOStreams {
	s := &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("BUTLER_NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		s.colorOff = true
	}
	s.width = terminalWidth(s.stdoutTTY)
	s.hints = hintsWanted(s.stderrTTY)
	return s
}

// terminalWidth is the width tables fit into: COLUMNS when set (tests, tmux, a deliberate
// choice, so it holds when piped too), else the terminal's, else 0: no limit, for pipes and
// files get every column in full.
func terminalWidth(stdoutTTY bool) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if !stdoutTTY {
		return 0
	}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
		return w
	}
	return 0
}

// hintsWanted: next steps after a refusal on a terminal (stderr), or when BUTLER_HINTS
// asks (1 on, 0 off), so scripts and pipes get the server's message alone.
func hintsWanted(stderrTTY bool) bool {
	switch os.Getenv("BUTLER_HINTS") {
	case "1", "true", "on":
		return true
	case "0", "false", "off":
		return false
	}
	return stderrTTY
}

// Test returns streams over buffers: no terminal, no colour.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, colorOff: true}, in, out, errOut
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// IsStdinTTY reports whether input comes from a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether output goes to a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether error output goes to a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// CanPrompt is true only when both input and error output are terminals: scripts and CI
// never get a question.
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stderrTTY }

// ColorEnabled reports whether output may carry colour.
func (s *IOStreams) ColorEnabled() bool { return s.stdoutTTY && !s.colorOff }

// SetColorDisabled turns colour off (--no-color).
func (s *IOStreams) SetColorDisabled() { s.colorOff = true }

// SetColorEnabled turns colour back on, for tests of what a terminal shows.
func (s *IOStreams) SetColorEnabled() { s.colorOff = false }

// SetTTY overrides terminal detection, for tests.
func (s *IOStreams) SetTTY(stdin, stdout, stderr bool) {
	s.stdinTTY, s.stdoutTTY, s.stderrTTY = stdin, stdout, stderr
}

// Width is the width tables should fit into, 0 for no limit (see terminalWidth).
func (s *IOStreams) Width() int { return s.width }

// SetWidth overrides the width, for tests.
func (s *IOStreams) SetWidth(n int) { s.width = n }

// HintsEnabled reports whether a refusal may add its next step for people on stderr.
func (s *IOStreams) HintsEnabled() bool { return s.hints }

// SetHints overrides HintsEnabled, for tests.
func (s *IOStreams) SetHints(on bool) { s.hints = on }
