package reap

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

var frozenWrites = stewardv1alpha1.Permissions{BlockCreate: true, BlockUpdate: true, BlockDelete: true}

// server is a live payments whose carol-sandbox-1 expired and is frozen, with a server
// that deletes as the API server does: refused when refuse says so (for the dry run and
// the delete alike, as RBAC or a policy is), else a Conflict when the cluster's uid or
// resourceVersion is not the one read. meanwhile, when set, runs after each dry run.
type server struct {
	*storetest.Store
	refuse    func(dryRun bool) error
	meanwhile func()
}

func newServer(t *testing.T) *server {
	s := &server{Store: payments(t), refuse: func(bool) error { return nil }}
	for i := range s.Clusters {
		c := &s.Clusters[i]
		c.UID, c.ResourceVersion = types.UID("uid-"+c.Name), "1"
		if c.Name == "carol-sandbox-1" {
			c.Status.TenantNamespace = "carol-sandbox-1-tenant"
		}
	}
	s.ControlPlanes = []stewardv1alpha1.TenantControlPlane{{
		ObjectMeta: metav1.ObjectMeta{Name: "carol-sandbox-1", Namespace: "carol-sandbox-1-tenant"},
		Spec:       stewardv1alpha1.TenantControlPlaneSpec{WritePermissions: frozenWrites},
	}}
	s.Live = &storetest.Server{DeleteAsRead: func(ctx context.Context, c *v1alpha1.TenantCluster, dryRun bool) error {
		if err := s.refuse(dryRun); err != nil {
			return err
		}
		cur, err := s.GetCluster(ctx, c.Namespace, c.Name)
		if err != nil {
			return err
		}
		if cur.UID != c.UID || cur.ResourceVersion != c.ResourceVersion {
			return apierrors.NewConflict(v1alpha1.Resource("tenantclusters"), c.Name, errors.New("the object has been modified"))
		}
		if dryRun {
			if s.meanwhile != nil {
				s.meanwhile()
			}
			return nil
		}
		_, err = s.Store.DeleteCluster(ctx, c)
		return err
	}}
	return s
}

// DeleteCluster is the store's delete (without preconditions), refused as the server's is.
func (s *server) DeleteCluster(ctx context.Context, c *v1alpha1.TenantCluster) (store.Result, error) {
	if err := s.refuse(false); err != nil {
		return store.Result{}, err
	}
	return s.Store.DeleteCluster(ctx, c)
}

func forbidden(name string) error {
	return apierrors.NewForbidden(v1alpha1.Resource("tenantclusters"), name, errors.New(`policy "keep-sandboxes" forbids deleting it`))
}

func (s *server) writes(t *testing.T) stewardv1alpha1.Permissions {
	t.Helper()
	tcp, err := s.GetControlPlane(context.Background(), "carol-sandbox-1-tenant", "carol-sandbox-1")
	if err != nil {
		t.Fatal(err)
	}
	return tcp.Spec.WritePermissions
}

// A delete the server refuses (RBAC, a policy) leaves a frozen cluster frozen: its server
// dry run is refused before anything is thawed.
func TestRefusedDeleteLeavesTheClusterFrozen(t *testing.T) {
	s := newServer(t)
	s.refuse = func(bool) error { return forbidden("carol-sandbox-1") }
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "--team", "payments")
	if r.Code != 4 {
		t.Errorf("exit %d (%v), want 4", r.Code, r.Err)
	}
	if got := s.writes(t); got != frozenWrites {
		t.Errorf("write permissions %+v after a refused delete, want the cluster still frozen", got)
	}
	if !strings.Contains(r.Stdout, "carol-sandbox-1 refused (payments)") || !strings.Contains(r.Stdout, "(0 thawed first)") {
		t.Errorf("stdout %q", r.Stdout)
	}
}

// A delete refused after its dry run passed (the policy changed in between) freezes the
// control plane again.
func TestDeleteRefusedAfterTheThawFreezesAgain(t *testing.T) {
	s := newServer(t)
	s.refuse = func(dryRun bool) error {
		if dryRun {
			return nil
		}
		return forbidden("carol-sandbox-1")
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "--team", "payments")
	if r.Code != 4 {
		t.Errorf("exit %d (%v), want 4", r.Code, r.Err)
	}
	if got := s.writes(t); got != frozenWrites {
		t.Errorf("write permissions %+v after a refused delete, want them frozen again", got)
	}
	if len(s.Deleted) != 0 {
		t.Errorf("deleted %q", s.Deleted)
	}
}

// The delete carries the resourceVersion read: a cluster extended between reap's read and
// its delete is kept (and frozen again), not deleted.
func TestExtendedBeforeTheDeleteIsKept(t *testing.T) {
	s := newServer(t)
	s.meanwhile = func() {
		for i := range s.Clusters {
			if c := &s.Clusters[i]; c.Name == "carol-sandbox-1" {
				c.Annotations[clusterttl.Annotation] = "2025-01-01T04:00:00Z"
				c.ResourceVersion = "2"
			}
		}
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "--team", "payments")
	if len(s.Deleted) != 0 {
		t.Fatalf("deleted %q: the owner extended it", s.Deleted)
	}
	if got := s.writes(t); got != frozenWrites {
		t.Errorf("write permissions %+v, want the kept cluster frozen again", got)
	}
	if !strings.Contains(r.Stdout, "Reaped 0 expired cluster(s) of 4 checked (0 thawed first); 2 not expired") {
		t.Errorf("stdout %q", r.Stdout)
	}
}

// A status written meanwhile (the resourceVersion moved, the expiry did not) does not stop
// the reap: the cluster is read again and deleted as it is then.
func TestChangedButStillExpiredIsDeleted(t *testing.T) {
	s := newServer(t)
	bumped := false
	s.meanwhile = func() {
		for i := range s.Clusters {
			if c := &s.Clusters[i]; c.Name == "carol-sandbox-1" && !bumped {
				c.ResourceVersion, bumped = "2", true
			}
		}
	}
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "--team", "payments")
	if len(s.Deleted) != 1 || s.Deleted[0] != "TenantCluster payments/carol-sandbox-1" {
		t.Fatalf("deleted %q; stdout %q", s.Deleted, r.Stdout)
	}
	if !strings.Contains(r.Stdout, "(1 thawed first)") {
		t.Errorf("stdout %q", r.Stdout)
	}
}
