package delete

import (
	"context"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// deletes is a store that is team delete's Store and nothing more: the worked example's
// reads, manifests as its kind, and a DeleteTeam that records what it was asked.
type deletes struct {
	store.Reader
	deleted []string
}

var _ Store = (*deletes)(nil)

func (*deletes) Kind() store.Kind { return store.Manifests }

func (d *deletes) DeleteTeam(_ context.Context, t *v1alpha1.Team) (store.Result, error) {
	d.deleted = append(d.deleted, t.Name)
	return store.Result{Location: "team.yaml"}, nil
}

func runOver(t *testing.T, s Store, team string) (string, error) {
	t.Helper()
	deps, out, _ := cmdtest.Deps(s, Spec, "")
	err := run(context.Background(), &Options{Deps: deps, Team: team, Yes: true})
	return out.String(), err
}

// A team that still has clusters is not deleted (exit 4), even for a platform admin; one
// without is, and the file it went from is named.
func TestRunDeletesOnlyAnEmptyTeam(t *testing.T) {
	example := storetest.Payments(t, "olivia@example.com")
	fake := &deletes{Reader: example}
	if _, err := runOver(t, fake, "payments"); cmdutil.CodeOf(err) != cmdutil.ExitDenied || !strings.Contains(err.Error(), "still has 4 cluster(s)") {
		t.Errorf("a team with clusters: exit %d: %v", cmdutil.CodeOf(err), err)
	}
	if len(fake.deleted) != 0 {
		t.Fatalf("deleted %v", fake.deleted)
	}
	example.Clusters = nil
	got, err := runOver(t, fake, "payments")
	if err != nil || strings.Join(fake.deleted, ",") != "payments" || !strings.Contains(got, "team.butler.butlerlabs.dev/payments deleted") || !strings.Contains(got, "team.yaml") {
		t.Errorf("an empty team: %v; deleted %v; stdout %q", err, fake.deleted, got)
	}
}

// Who asks comes first: a team admin who is no platform admin hears that, and nothing is
// deleted.
func TestRunRefusesATeamAdmin(t *testing.T) {
	fake := &deletes{Reader: storetest.Payments(t, "alice@example.com")}
	if _, err := runOver(t, fake, "payments"); cmdutil.CodeOf(err) != cmdutil.ExitDenied || !strings.Contains(err.Error(), "only platform admins may") || len(fake.deleted) != 0 {
		t.Errorf("exit %d: %v; deleted %v", cmdutil.CodeOf(err), err, fake.deleted)
	}
}
