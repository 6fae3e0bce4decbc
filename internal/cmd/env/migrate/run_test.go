package migrate

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// moves is a store that is env migrate's Store and nothing more: the worked example's reads
// (store.Reader) and a MigrateCluster that answers Conflict a given number of times before
// it records the move. It has no Kind, no Server, no other writer: run needs none.
type moves struct {
	store.Reader
	conflicts int
	calls     []string
	moved     map[string]string
}

var _ Store = (*moves)(nil)

func (m *moves) MigrateCluster(_ context.Context, c *v1alpha1.TenantCluster, env string) (store.MigrateResult, error) {
	m.calls = append(m.calls, c.Name)
	if m.conflicts > 0 {
		m.conflicts--
		return store.MigrateResult{}, apierrors.NewConflict(v1alpha1.Resource("tenantclusters"), c.Name, errors.New("the object has been modified"))
	}
	m.moved[c.Name] = env
	return store.MigrateResult{Location: "cluster.yaml", Labeled: true, Cleaned: true}, nil
}

// run through the command's own Store: a Conflict is read again, planned again and sent
// again, and the move is reported once.
func TestRunRetriesAConflictThroughItsStore(t *testing.T) {
	fake := &moves{Reader: storetest.Payments(t, "alice@example.com"), conflicts: 2, moved: map[string]string{}}
	deps, out, errOut := cmdtest.Deps[Store](fake, output.Spec{}, "")
	o := &Options{Deps: deps, Team: "payments", Environment: "prod", Names: []string{"ledger-legacy"}, Yes: true, Concurrency: 1}
	if err := run(context.Background(), o); err != nil {
		t.Fatalf("%v\nstderr: %s", err, errOut)
	}
	if got := strings.Join(fake.calls, ","); got != "ledger-legacy,ledger-legacy,ledger-legacy" {
		t.Errorf("moves sent: %s, want ledger-legacy three times (two Conflicts, then the move)", got)
	}
	if fake.moved["ledger-legacy"] != "prod" || len(fake.moved) != 1 {
		t.Errorf("moved %v", fake.moved)
	}
	if !strings.Contains(out.String(), "tenantcluster.butler.butlerlabs.dev/ledger-legacy migrated: (unlabeled) -> prod\n") ||
		!strings.Contains(out.String(), "Summary: 1 migrated, 0 skipped, 0 failed\n") {
		t.Errorf("stdout:\n%s", out)
	}
}
