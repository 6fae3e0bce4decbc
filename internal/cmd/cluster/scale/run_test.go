package scale

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// contested is a fake of cluster scale's Store that answers only what run reads and
// writes: the team, who asks (a team member, no platform admin), one cluster, its
// ProviderConfigs, no ClusterCreationPolicies; and a scale that first finds the cluster
// changed by someone else (Conflict), as a server does. The rest of store.Reader is left
// nil: run calling it fails the test with a nil dereference.
type contested struct {
	store.Reader
	team    v1alpha1.Team
	cluster v1alpha1.TenantCluster
	pcs     []v1alpha1.ProviderConfig
	// meanwhile is someone else's change, made on the first scale, which then conflicts.
	meanwhile func(*v1alpha1.TenantCluster)
	reads     int
	scaled    []int32
	// sent are the clusters ScaleCluster was handed, as run read them.
	sent []*v1alpha1.TenantCluster
}

func (f *contested) Identity(context.Context) (policy.Identity, error) {
	return policy.Identity{Username: "bob@example.com"}, nil
}

func (f *contested) PlatformAdmin(context.Context, policy.Identity) (bool, string, error) {
	return false, "", nil
}

func (f *contested) GetTeam(_ context.Context, name string) (*v1alpha1.Team, error) {
	if name != f.team.Name {
		return nil, apierrors.NewNotFound(v1alpha1.Resource("teams"), name)
	}
	return f.team.DeepCopy(), nil
}

func (f *contested) GetCluster(_ context.Context, ns, name string) (*v1alpha1.TenantCluster, error) {
	f.reads++
	if ns != f.cluster.Namespace || name != f.cluster.Name {
		return nil, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), name)
	}
	return f.cluster.DeepCopy(), nil
}

func (f *contested) ListClusters(context.Context, string) ([]v1alpha1.TenantCluster, error) {
	return []v1alpha1.TenantCluster{f.cluster}, nil
}

func (f *contested) ListClusterCreationPolicies(context.Context) ([]v1alpha1.ClusterCreationPolicy, error) {
	return nil, nil
}

func (f *contested) GetProviderConfig(_ context.Context, ns, name string) (*v1alpha1.ProviderConfig, error) {
	for i := range f.pcs {
		if f.pcs[i].Namespace == ns && f.pcs[i].Name == name {
			return f.pcs[i].DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("providerconfigs"), name)
}

func (f *contested) ScaleCluster(_ context.Context, c *v1alpha1.TenantCluster, replicas int32) (*v1alpha1.TenantCluster, store.Result, error) {
	if f.meanwhile != nil {
		f.meanwhile(&f.cluster)
		f.meanwhile = nil
		return nil, store.Result{}, apierrors.NewConflict(v1alpha1.Resource("tenantclusters"), c.Name, errors.New("the object has been modified"))
	}
	f.scaled, f.sent = append(f.scaled, replicas), append(f.sent, c.DeepCopy())
	f.cluster.Spec.Workers.Replicas = replicas
	return f.cluster.DeepCopy(), store.Result{Location: "clusters/" + c.Name + ".yaml"}, nil
}

func (f *contested) DeleteCluster(context.Context, *v1alpha1.TenantCluster) (store.Result, error) {
	panic("cluster scale deletes nothing")
}

func (f *contested) Kind() store.Kind { return store.Live }

func newContested(t *testing.T, meanwhile func(*v1alpha1.TenantCluster)) *contested {
	payments := storetest.Payments(t, "bob@example.com")
	f := &contested{team: payments.Teams[0], pcs: payments.ProviderConfigs, meanwhile: meanwhile}
	for _, c := range payments.Clusters {
		if c.Name == "bob-checkout" {
			f.cluster = c
		}
	}
	return f
}

func scaleTo(t *testing.T, f *contested, workers int32) (string, error) {
	deps, out, _ := cmdtest.Deps[Store](f, Spec, "")
	o := &Options{Workers: workers}
	o.Deps, o.Name, o.Team = deps, "bob-checkout", "payments"
	err := run(context.Background(), o)
	return out.String(), err
}

// run alone, over a fake of the command's Store: a Conflict makes run read the cluster
// again and decide again. Someone else scaled it to the count asked for meanwhile: the
// fresh read says so and nothing more is written.
func TestRunDecidesAgainAfterAConflict(t *testing.T) {
	f := newContested(t, func(c *v1alpha1.TenantCluster) { c.Spec.Workers.Replicas = 5 })
	out, err := scaleTo(t, f, 5)
	if err != nil {
		t.Fatal(err)
	}
	if f.reads != 2 || len(f.scaled) != 0 {
		t.Errorf("%d reads, scaled to %v; want a second read and no write", f.reads, f.scaled)
	}
	if want := "tenantcluster.butler.butlerlabs.dev/bob-checkout unchanged: already 5 worker(s)\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
}

// Someone else changed another field meanwhile: the second attempt scales from the fresh
// read, and live the line names no file.
func TestRunScalesFromTheFreshRead(t *testing.T) {
	f := newContested(t, func(c *v1alpha1.TenantCluster) { c.Labels["touched"] = "yes" })
	out, err := scaleTo(t, f, 4)
	if err != nil {
		t.Fatal(err)
	}
	if f.reads != 2 || len(f.scaled) != 1 || f.scaled[0] != 4 || f.sent[0].Labels["touched"] != "yes" {
		t.Fatalf("%d reads, scaled to %v; want two reads and one write of 4, of the cluster as read again", f.reads, f.scaled)
	}
	if want := "tenantcluster.butler.butlerlabs.dev/bob-checkout scaled: 3 -> 4 worker(s)\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
}
