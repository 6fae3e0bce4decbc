package prompt_test

import (
	"errors"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/prompt"
)

func prompter(input string, tty bool) (*prompt.Prompter, func() string) {
	s, in, _, errOut := iostreams.Test()
	s.SetTTY(tty, false, tty)
	in.WriteString(input)
	return prompt.New(s), errOut.String
}

func cancelled(t *testing.T, err error, want string) {
	t.Helper()
	var c *cmdutil.CancelledError
	if !errors.As(err, &c) || err.Error() != want || cmdutil.CodeOf(err) != cmdutil.ExitFailure {
		t.Fatalf("got %v (%T), want cancelled %q with exit 1", err, err, want)
	}
}

func TestConfirm(t *testing.T) {
	p, _ := prompter("y\nYES\nn\n", true)
	for i := 0; i < 2; i++ { // answers typed ahead are all read, in order
		if err := p.Confirm("Go? [y/N]: ", "cancelled: input %q"); err != nil {
			t.Fatal(err)
		}
	}
	cancelled(t, p.Confirm("Go? [y/N]: ", "cancelled: input %q"), `cancelled: input "n"`)
}

func TestTypeNameAndWord(t *testing.T) {
	p, errOut := prompter("web\nweb2\nRELABEL\nrelabel", true)
	if err := p.TypeName("Type its name: ", "deletion", "web"); err != nil {
		t.Fatal(err)
	}
	cancelled(t, p.TypeName("Type its name: ", "deletion", "web"), `deletion cancelled: you typed "web2", expected "web"`)
	if err := p.TypeWord("Type RELABEL: ", "RELABEL", "x %q"); err != nil {
		t.Fatal(err)
	}
	cancelled(t, p.TypeWord("Type RELABEL: ", "RELABEL", "cancelled: input %q"), `cancelled: input "relabel"`)
	// End of input: the question's line is ended so what follows starts on its own.
	if got := errOut(); got != "Type its name: Type its name: Type RELABEL: Type RELABEL: \n" {
		t.Errorf("stderr %q", got)
	}
}

func TestNoTerminal(t *testing.T) {
	p, errOut := prompter("y\n", false)
	if p.CanPrompt() {
		t.Fatal("CanPrompt without a terminal")
	}
	if err := p.Confirm("Go? ", "%q"); !errors.Is(err, prompt.ErrNoTerminal) || errOut() != "" {
		t.Fatalf("got %v, stderr %q", err, errOut())
	}
}
