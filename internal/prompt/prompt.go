// Package prompt asks questions on the terminal: confirm (y/N), type the name of what is
// about to go, type a word. Commands ask only when the streams can prompt (stdin and
// stderr are terminals), never in scripts; a declined question is a cmdutil.Cancelled
// error (exit 1, printed without "Error:").
package prompt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
)

// ErrNoTerminal is returned when there is no terminal to ask on; commands check
// CanPrompt first and say which flag confirms instead.
var ErrNoTerminal = errors.New("there is no terminal to ask on")

// maxAnswer bounds one answer: a name or a word, not data.
const maxAnswer = 4 << 10

// Prompter asks on stderr and reads answers from stdin. One per command run, so answers
// typed ahead are not lost between questions.
type Prompter struct {
	in  *bufio.Reader
	out io.Writer
	can bool
}

// New returns a prompter over the streams.
func New(s *iostreams.IOStreams) *Prompter {
	return &Prompter{in: bufio.NewReader(io.LimitReader(s.In, maxAnswer*64)), out: s.ErrOut, can: s.CanPrompt()}
}

// CanPrompt reports whether there is a terminal to ask on.
func (p *Prompter) CanPrompt() bool { return p.can }

// Confirm asks a y/N question; anything but y or yes declines, with declined as the
// cancellation message (%q in it is what was typed).
func (p *Prompter) Confirm(question, declined string) error {
	typed, err := p.ask(question)
	if err != nil {
		return err
	}
	if a := strings.ToLower(typed); a != "y" && a != "yes" {
		return cmdutil.Cancelled(declined, typed)
	}
	return nil
}

// TypeName asks for name itself, as before deleting it; anything else cancels with
// "<what> cancelled: you typed "x", expected "name"".
func (p *Prompter) TypeName(question, what, name string) error {
	typed, err := p.ask(question)
	if err != nil {
		return err
	}
	if typed != name {
		return cmdutil.Cancelled("%s cancelled: you typed %q, expected %q", what, typed, name)
	}
	return nil
}

// TypeWord asks for an exact word (RELABEL); anything else declines, with declined as
// the cancellation message (%q in it is what was typed).
func (p *Prompter) TypeWord(question, word, declined string) error {
	typed, err := p.ask(question)
	if err != nil {
		return err
	}
	if typed != word {
		return cmdutil.Cancelled(declined, typed)
	}
	return nil
}

// ask writes the question and reads one line, trimmed. End of input is an empty answer,
// after a newline so the next message starts on its own line.
func (p *Prompter) ask(question string) (string, error) {
	if !p.can {
		return "", ErrNoTerminal
	}
	fmt.Fprint(p.out, question)
	line, err := p.in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(p.out)
	}
	if len(line) > maxAnswer {
		line = line[:maxAnswer]
	}
	return strings.TrimSpace(line), nil
}
