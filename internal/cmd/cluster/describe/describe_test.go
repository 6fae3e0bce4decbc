package describe_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/describe"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// now is the fixed clock of the goldens.
var now = time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)

// withEvents is the offline store with the events a live one would list (manifests have
// none), so the goldens show the whole tree.
type withEvents struct{ *offline.Store }

func (withEvents) ListEvents(context.Context, string, string, string) ([]corev1.Event, error) {
	at := func(m int) metav1.Time { return metav1.NewTime(now.Add(-time.Duration(m) * time.Minute)) }
	return []corev1.Event{
		{Type: "Normal", Reason: "UpgradeStarted", Message: "upgrading to v1.32.1", Count: 1, LastTimestamp: at(5)},
		{Type: "Warning", Reason: "WorkerDrainSlow", Message: "node checkout-w-2 has taken 3m to drain; a PodDisruptionBudget in namespace shop allows no disruption", Count: 4, LastTimestamp: at(1)},
	}, nil
}

func run(t *testing.T, tty bool, output string, args ...string) string {
	t.Helper()
	streams, _, out, errOut := iostreams.Test()
	streams.SetTTY(false, tty, false)
	if tty {
		streams.SetColorEnabled()
	}
	dir := filepath.Join("testdata", "fleet.yaml")
	f := &factory.Factory{
		IOStreams: streams,
		Now:       func() time.Time { return now },
		Options:   &factory.GlobalOptions{Manifests: []string{dir}, As: "bob@example.com", Output: output},
		NewStore: func(context.Context, *factory.Factory) (store.Store, error) {
			s, err := offline.Load([]string{dir}, nil, "bob@example.com", nil)
			if err != nil {
				return nil, err
			}
			return withEvents{s}, nil
		},
	}
	describe.TerminalWidth = func() int { return 80 }
	cmd := describe.NewCmd(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	return out.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// On a terminal (80 columns): coloured, long lines cut with an ellipsis. Piped: plain and
// whole. -o yaml: the same view as data.
func TestDescribeGoldens(t *testing.T) {
	golden(t, "tty.golden", run(t, true, "table", "checkout", "--team", "payments"))
	piped := run(t, false, "table", "checkout", "--team", "payments")
	golden(t, "piped.golden", piped)
	if bytes.ContainsRune([]byte(piped), '\x1b') {
		t.Error("piped output has colour codes")
	}
	golden(t, "view.yaml.golden", run(t, false, "yaml", "checkout", "--team", "payments"))
}
