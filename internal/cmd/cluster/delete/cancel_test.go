package delete_test

import (
	"context"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/delete"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/root"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
)

// Declining the prompt is no error: exit 1, the cancellation said alone, no "Error:".
func TestDeclinedIsCancelledWithoutErrorLine(t *testing.T) {
	dir := payments(t)
	streams, in, _, errOut := iostreams.Test()
	streams.SetTTY(true, false, true)
	in.WriteString("nope\n")
	as := "carol@example.com"
	f := &factory.Factory{
		IOStreams: streams,
		Options:   &factory.GlobalOptions{Manifests: []string{dir}, As: as},
		NewStore: func(context.Context, *factory.Factory) (store.Store, error) {
			return offline.Load([]string{dir}, nil, as, nil)
		},
	}
	cmd := delete.NewCmd(f, nil)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true // as the binaries' roots are
	code := root.Run(f, cmd, []string{"carol-sandbox-2", "--team", "payments"})
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, errOut)
	}
	want := "deletion cancelled: you typed \"nope\", expected \"carol-sandbox-2\"\n"
	if !strings.HasSuffix(errOut.String(), want) || strings.Contains(errOut.String(), "Error:") {
		t.Fatalf("stderr %q, want it to end in %q with no Error: line", errOut, want)
	}
}
