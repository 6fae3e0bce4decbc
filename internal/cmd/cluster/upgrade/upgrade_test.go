package upgrade_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/upgrade"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// conflicting answers every upgrade with a Conflict, as a server does when the cluster
// changed since it was read, and counts the attempts.
type conflicting struct {
	*offline.Store
	calls int
}

func (c *conflicting) UpgradeCluster(_ context.Context, tc *v1alpha1.TenantCluster, _ string) (*v1alpha1.TenantCluster, store.Result, error) {
	c.calls++
	return nil, store.Result{}, apierrors.NewConflict(v1alpha1.Resource("tenantclusters"), tc.Name, errors.New("the object has been modified"))
}

// A Conflict is reported once, exit 1, and never retried: an upgrade decided on a stale
// read must be decided again (scale, by contrast, re-reads and retries).
func TestConflictIsNotRetried(t *testing.T) {
	src := filepath.Join("..", "..", "..", "..", "examples", "payments")
	streams, _, out, errOut := iostreams.Test()
	c := &conflicting{}
	f := &factory.Factory{
		IOStreams: streams,
		Options:   &factory.GlobalOptions{Manifests: []string{src}, As: "bob@example.com", Output: "table"},
		NewStore: func(context.Context, *factory.Factory) (store.Store, error) {
			s, err := offline.Load([]string{src}, nil, "bob@example.com", nil)
			c.Store = s
			return c, err
		},
	}
	cmd := upgrade.NewCmd(f, nil)
	cmd.SetArgs([]string{"bob-checkout", "--team", "payments", "--kubernetes-version", "v1.32.0", "--yes"})
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	if c.calls != 1 {
		t.Errorf("%d attempts, want 1", c.calls)
	}
	if cmdutil.CodeOf(err) != cmdutil.ExitFailure || !strings.Contains(err.Error(), `tenant cluster "bob-checkout" changed since it was read`) {
		t.Fatalf("got %v (exit %d)", err, cmdutil.CodeOf(err))
	}
	b, _ := os.ReadFile(filepath.Join(src, "clusters", "bob-checkout.yaml"))
	if !strings.Contains(string(b), "kubernetesVersion: v1.31.0") {
		t.Error("the example changed")
	}
}
