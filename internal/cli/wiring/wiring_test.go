package wiring

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
)

// --manifests - on a terminal says what it waits for; piped, or without -, nothing.
func TestStdinHint(t *testing.T) {
	for _, c := range []struct {
		tty       bool
		manifests []string
		hint      bool
	}{
		{true, []string{"examples/payments", "-"}, true},
		{false, []string{"-"}, false},
		{true, []string{"examples/payments"}, false},
	} {
		io, _, _, errOut := iostreams.Test()
		io.SetTTY(c.tty, false, c.tty)
		stdinHint(&factory.Factory{IOStreams: io, Options: &factory.GlobalOptions{Manifests: c.manifests}})
		if got := errOut.Len() > 0; got != c.hint {
			t.Errorf("tty %v, %v: hint %v (%q)", c.tty, c.manifests, got, errOut.String())
		}
	}
}
