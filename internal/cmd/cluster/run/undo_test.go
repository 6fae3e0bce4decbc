package run

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// refusingStore refuses every create, after storing the cluster when stores is set (an
// addon refused after the cluster was created). meanwhile, when set, is another run's
// cluster, created between this run's preflight and its create.
type refusingStore struct {
	*storetest.Store
	stores    bool
	meanwhile *v1alpha1.TenantCluster
}

func (s *refusingStore) CreateCluster(ctx context.Context, c *v1alpha1.TenantCluster, addons []v1alpha1.TenantAddon) (store.Result, error) {
	if s.meanwhile != nil {
		s.Clusters = append(s.Clusters, *s.meanwhile)
	}
	if s.stores {
		if _, err := s.Store.CreateCluster(ctx, c, addons); err != nil {
			return store.Result{}, err
		}
		return store.Result{}, errors.New(`tenantaddon ci-x-cni: admission webhook denied the request`)
	}
	return store.Result{}, apierrors.NewForbidden(v1alpha1.Resource("tenantclusters"), c.Name, errors.New("the environment's cap is reached"))
}

// A run whose create is refused deletes nothing of another run's: not the Ready cluster of
// the same name and the same expiry that a concurrent run (same NAME, same --ttl, the same
// second) created, whose COMMAND is running on it.
func TestRefusedCreateLeavesAnotherRunsCluster(t *testing.T) {
	s := &refusingStore{Store: live(t, "bob@example.com", "x")}
	other := s.Clusters[0].DeepCopy()
	other.Name, other.UID = "ci-x", "uid-of-the-other-run"
	other.Annotations = map[string]string{
		clusterttl.Annotation: "2025-01-01T01:00:00Z", // cmdtest's clock plus --ttl 1h, as this run's
		AnnotationRun:         "the-other-run",
	}
	other.Status.Phase = "Ready"
	s.meanwhile = other
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false,
		"ci-x", "--team", "payments", "--environment", "dev", "--ttl", "1h", "--", "true")
	if r.Code != 4 {
		t.Errorf("exit %d (%v), want 4 for the refused create", r.Code, r.Err)
	}
	if len(s.Deleted) != 0 {
		t.Errorf("deleted %q: another run's cluster", s.Deleted)
	}
}

// A create that stored the cluster and then failed (an addon refused) deletes that
// cluster: this run's own.
func TestFailedCreateDeletesItsOwnCluster(t *testing.T) {
	s := &refusingStore{Store: live(t, "bob@example.com", "x"), stores: true}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false,
		"ci-x", "--team", "payments", "--environment", "dev", "--ttl", "1h", "--", "true")
	if r.Code == 0 {
		t.Errorf("exit 0 after a failed create")
	}
	if len(s.Deleted) != 1 || s.Deleted[0] != "TenantCluster payments/ci-x" {
		t.Errorf("deleted %q, want this run's ci-x", s.Deleted)
	}
	if !strings.Contains(r.Stderr, "tenantcluster.butler.butlerlabs.dev/ci-x deleted (the create failed)") {
		t.Errorf("stderr %q", r.Stderr)
	}
}

// The cleanup deletes only this run's cluster: one of the same name created after this
// run's was deleted by someone else is left alone.
func TestCleanupLeavesAClusterOfTheSameNameNotItsOwn(t *testing.T) {
	s := live(t, "bob@example.com", "x")
	r := &runner{o: &Options{OnFailure: OnFailureDelete}, s: s, id: "this-run", abandon: make(chan struct{})}
	r.o.IO, _, _, _ = iostreams.Test()
	c := s.Clusters[0].DeepCopy()
	c.Annotations = map[string]string{AnnotationRun: "another-run"}
	s.Clusters[0] = *c
	if err := r.cleanup(c, false); err != nil {
		t.Fatal(err)
	}
	if len(s.Deleted) != 0 {
		t.Errorf("deleted %q: not this run's cluster", s.Deleted)
	}
}
