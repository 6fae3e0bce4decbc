package scale_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/scale"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// payments is a copy of the worked example, for the writes.
var payments = cmdtest.PaymentsDir

// conflicting answers the first n scales with a Conflict, as a server does when the
// cluster changed since it was read.
type conflicting struct {
	*offline.Store
	n, calls int
}

func (c *conflicting) ScaleCluster(ctx context.Context, tc *v1alpha1.TenantCluster, replicas int32) (*v1alpha1.TenantCluster, store.Result, error) {
	c.calls++
	if c.calls <= c.n {
		return nil, store.Result{}, apierrors.NewConflict(v1alpha1.Resource("tenantclusters"), tc.Name, errors.New("the object has been modified"))
	}
	return c.Store.ScaleCluster(ctx, tc, replicas)
}

func runScale(t *testing.T, dir string, wrap func(*offline.Store) store.Store, args ...string) (string, string, error) {
	t.Helper()
	streams, _, out, errOut := iostreams.Test()
	f := &factory.Factory{
		IOStreams: streams,
		Options:   &factory.GlobalOptions{Manifests: []string{dir}, As: "bob@example.com", Output: "table"},
		NewStore: func(context.Context, *factory.Factory) (store.Store, error) {
			s, err := offline.Load([]string{dir}, nil, "bob@example.com", nil)
			if err != nil {
				return nil, err
			}
			return wrap(s), nil
		},
	}
	cmd := scale.NewCmd(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func TestScaleRetriesOnConflict(t *testing.T) {
	dir := payments(t)
	c := &conflicting{n: scale.Attempts - 1}
	out, _, err := runScale(t, dir, func(s *offline.Store) store.Store { c.Store = s; return c },
		"bob-checkout", "--team", "payments", "--workers", "5")
	if err != nil {
		t.Fatal(err)
	}
	if c.calls != scale.Attempts {
		t.Errorf("%d attempts, want %d", c.calls, scale.Attempts)
	}
	if !strings.Contains(out, "scaled: 3 -> 5 worker(s)") {
		t.Errorf("output: %q", out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "clusters", "bob-checkout.yaml"))
	if !strings.Contains(string(b), "    replicas: 5\n") {
		t.Errorf("file not scaled:\n%s", b)
	}
}

func TestScaleGivesUpAfterAttempts(t *testing.T) {
	dir := payments(t)
	c := &conflicting{n: 100}
	_, _, err := runScale(t, dir, func(s *offline.Store) store.Store { c.Store = s; return c },
		"bob-checkout", "--team", "payments", "--workers", "5")
	if !apierrors.IsConflict(err) || c.calls != scale.Attempts {
		t.Fatalf("after %d attempts: %v", c.calls, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "clusters", "bob-checkout.yaml"))
	if !strings.Contains(string(b), "    replicas: 3\n") {
		t.Errorf("file changed:\n%s", b)
	}
}
