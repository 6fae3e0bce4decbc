package extend

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// one is a fake of cluster extend's Store that answers only what run reads: the team, who
// asks (a team member, no platform admin), the cluster and its siblings, the
// ProviderConfigs its rules read, and a server that
// records the annotations patched. The rest of store.Reader and store.Server is left nil:
// run calling it fails the test with a nil dereference.
type one struct {
	store.Reader
	team    v1alpha1.Team
	cluster v1alpha1.TenantCluster
	pcs     []v1alpha1.ProviderConfig
	as      string
	patched []string
}

func (f *one) Identity(context.Context) (policy.Identity, error) {
	return policy.Identity{Username: f.as}, nil
}

func (f *one) PlatformAdmin(context.Context, policy.Identity) (bool, string, error) {
	return false, "", nil
}

func (f *one) GetTeam(_ context.Context, name string) (*v1alpha1.Team, error) {
	if name != f.team.Name {
		return nil, apierrors.NewNotFound(v1alpha1.Resource("teams"), name)
	}
	return f.team.DeepCopy(), nil
}

func (f *one) GetCluster(_ context.Context, ns, name string) (*v1alpha1.TenantCluster, error) {
	if ns != f.cluster.Namespace || name != f.cluster.Name {
		return nil, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), name)
	}
	return f.cluster.DeepCopy(), nil
}

func (f *one) ListClusters(context.Context, string) ([]v1alpha1.TenantCluster, error) {
	return []v1alpha1.TenantCluster{f.cluster}, nil
}

func (f *one) GetProviderConfig(_ context.Context, ns, name string) (*v1alpha1.ProviderConfig, error) {
	for i := range f.pcs {
		if f.pcs[i].Namespace == ns && f.pcs[i].Name == name {
			return f.pcs[i].DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("providerconfigs"), name)
}

func (f *one) Server() (store.Server, error) { return annotator{f: f}, nil }

// annotator is the fake's server: AnnotateCluster, which writes the fake's cluster; the
// rest of store.Server is left nil.
type annotator struct {
	store.Server
	f *one
}

func (a annotator) AnnotateCluster(_ context.Context, c *v1alpha1.TenantCluster, key, value string) (*v1alpha1.TenantCluster, error) {
	a.f.patched = append(a.f.patched, c.Name+" "+key+"="+value)
	out := c.DeepCopy()
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[key] = value
	a.f.cluster = *out
	return out.DeepCopy(), nil
}

// run alone, over a fake of the command's Store: the expiry becomes now plus --ttl in one
// patch; run again with a shorter --ttl, the later expiry stays and nothing is patched.
func TestRunOverItsStore(t *testing.T) {
	payments := storetest.Payments(t, "bob@example.com")
	f := &one{team: payments.Teams[0], pcs: payments.ProviderConfigs, as: "bob@example.com"}
	for _, c := range payments.Clusters {
		if c.Name == "bob-checkout" {
			f.cluster = c
		}
	}
	deps, out, _ := cmdtest.Deps[Store](f, Spec, "")
	o := &Options{TTL: 6 * time.Hour}
	o.Deps, o.Name, o.Team = deps, "bob-checkout", "payments"
	if err := run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	want := "bob-checkout " + clusterttl.Annotation + "=2025-01-01T06:00:00Z"
	if len(f.patched) != 1 || f.patched[0] != want {
		t.Fatalf("patched %q, want %q", f.patched, want)
	}
	if got := out.String(); got != "tenantcluster.butler.butlerlabs.dev/bob-checkout extended: expires 2025-01-01T06:00:00Z (in 6h0m0s)\n" {
		t.Errorf("stdout %q", got)
	}

	o.Deps, out, _ = cmdtest.Deps[Store](f, Spec, "")
	o.TTL = time.Hour
	if err := run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(f.patched) != 1 {
		t.Errorf("patched %q: a later expiry must not be moved earlier", f.patched)
	}
	if got := out.String(); got != "tenantcluster.butler.butlerlabs.dev/bob-checkout unchanged: expires 2025-01-01T06:00:00Z, after now plus 1h0m0s\n" {
		t.Errorf("stdout %q", got)
	}
}
