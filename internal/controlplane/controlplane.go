// Package controlplane is what the tools know of a tenant cluster's Steward
// TenantControlPlane (docs/rules.md §11): the write modes of `butleradm cluster freeze`, how
// a cluster finds its control plane (named after the cluster, in the cluster's
// status.tenantNamespace), and the write state that `butlerctl cluster get` and
// `cluster list -o wide` show in their WRITES column.
package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// Write modes: the names of the combinations of spec.writePermissions.
const (
	// ReadOnly blocks creation, update and deletion.
	ReadOnly = "read-only"
	// Quota blocks creation and update and allows deletion, so that tenants can clean up
	// when the datastore is over quota.
	Quota = "quota"
	// Custom is any other non-empty combination.
	Custom = "custom"
	// None blocks nothing.
	None = "none"
)

// Column values besides a mode.
const (
	// NoState is the WRITES column of a cluster without a control plane to limit (no
	// tenant namespace yet, or no TenantControlPlane), and of one that blocks nothing.
	NoState = "-"
	// Unknown is the WRITES column when the control plane could not be read: Steward's
	// API is not installed, or the caller may not read TenantControlPlanes.
	Unknown = "?"
)

// Permissions returns the write permissions of a named mode (ReadOnly, Quota or None).
func Permissions(mode string) (stewardv1alpha1.Permissions, bool) {
	switch mode {
	case ReadOnly:
		return stewardv1alpha1.Permissions{BlockCreate: true, BlockUpdate: true, BlockDelete: true}, true
	case Quota:
		return stewardv1alpha1.Permissions{BlockCreate: true, BlockUpdate: true}, true
	case None:
		return stewardv1alpha1.Permissions{}, true
	}
	return stewardv1alpha1.Permissions{}, false
}

// Mode names write permissions: ReadOnly, Quota, None, or Custom for the other
// combinations.
func Mode(p stewardv1alpha1.Permissions) string {
	for _, m := range []string{ReadOnly, Quota, None} {
		if q, _ := Permissions(m); q == p {
			return m
		}
	}
	return Custom
}

// Blocked describes what p blocks: "creation, update and deletion", "deletion", or
// "nothing".
func Blocked(p stewardv1alpha1.Permissions) string {
	var what []string
	if p.BlockCreate {
		what = append(what, "creation")
	}
	if p.BlockUpdate {
		what = append(what, "update")
	}
	if p.BlockDelete {
		what = append(what, "deletion")
	}
	switch len(what) {
	case 0:
		return "nothing"
	case 1:
		return what[0]
	}
	return strings.Join(what[:len(what)-1], ", ") + " and " + what[len(what)-1]
}

// Status is the control plane's version status (status.kubernetesResources.version.status):
// WriteLimited once Steward applies the limits.
func Status(tcp *stewardv1alpha1.TenantControlPlane) string {
	return tcp.Status.KubernetesResources.Version.Status
}

// Column is the WRITES column of a control plane: its mode with its status in
// parentheses ("read-only (WriteLimited)", "quota (Ready)" while Steward has not applied
// the limits yet), "-" when it blocks nothing, and "none (WriteLimited)" when it blocks
// nothing but is still reported limited (a thaw Steward has not applied yet).
func Column(tcp *stewardv1alpha1.TenantControlPlane) string {
	mode, status := Mode(tcp.Spec.WritePermissions), Status(tcp)
	switch {
	case mode == None && status != stewardv1alpha1.VersionWriteLimited:
		return NoState
	case status == "":
		return mode
	}
	return mode + " (" + status + ")"
}

// Ref names a control plane.
type Ref struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (r Ref) String() string { return r.Namespace + "/" + r.Name }

// RefOf is the control plane of a cluster; ok is false while the cluster has no tenant
// namespace (its control plane is not provisioned yet).
func RefOf(c *v1alpha1.TenantCluster) (Ref, bool) {
	ns := c.Status.TenantNamespace
	return Ref{Namespace: ns, Name: c.Name}, ns != ""
}

// Get reads the TenantControlPlane of a cluster. A cluster without a tenant namespace and
// a missing TenantControlPlane are not-found errors (exit 3) that say so, as butler-server
// answers 404 for both; a server without Steward's API is ErrNoControlPlaneAPI (exit 1);
// refusals are the server's (exit 4).
func Get(ctx context.Context, s store.ControlPlanes, c *v1alpha1.TenantCluster) (*stewardv1alpha1.TenantControlPlane, error) {
	ref, ok := RefOf(c)
	if !ok {
		return nil, notFound("TenantCluster %s/%s has no tenant namespace yet (status.tenantNamespace is empty): its control plane is not provisioned", c.Namespace, c.Name)
	}
	tcp, err := s.GetControlPlane(ctx, ref.Namespace, ref.Name)
	if apierrors.IsNotFound(err) {
		return nil, notFound("TenantControlPlane %s not found: TenantCluster %s/%s has no control plane (yet)", ref, c.Namespace, c.Name)
	}
	return tcp, err
}

// FewClusters is how many clusters States reads one request each; for more it lists every
// TenantControlPlane once (paginated), so a long list never costs a request per cluster.
const FewClusters = 10

// Key is the key of a cluster in the map States returns.
func Key(c *v1alpha1.TenantCluster) string { return c.Namespace + "/" + c.Name }

// States is the WRITES column of each cluster (by Key). A control plane that cannot be
// read, because Steward's API is not installed or the caller may not read it, is Unknown;
// so is every one when the store has no ControlPlanes side. The error, if any, is the
// first failure that is neither of those (the column then shows Unknown too): the caller
// may warn about it, never fail the listing.
func States(ctx context.Context, s store.ControlPlanes, clusters []v1alpha1.TenantCluster) (map[string]string, error) {
	out := make(map[string]string, len(clusters))
	var with []*v1alpha1.TenantCluster
	for i := range clusters {
		c := &clusters[i]
		out[Key(c)] = NoState
		if _, ok := RefOf(c); ok {
			with = append(with, c)
		}
	}
	if len(with) == 0 {
		return out, nil
	}
	cps := s
	var firstErr error
	fail := func(c *v1alpha1.TenantCluster, err error) {
		out[Key(c)] = Unknown
		if firstErr == nil && !tolerated(err) {
			firstErr = err
		}
	}

	if len(with) > FewClusters {
		all, err := cps.ListControlPlanes(ctx, "")
		if err != nil {
			for _, c := range with {
				fail(c, err)
			}
			return out, firstErr
		}
		byRef := make(map[Ref]*stewardv1alpha1.TenantControlPlane, len(all))
		for i := range all {
			byRef[Ref{Namespace: all[i].Namespace, Name: all[i].Name}] = &all[i]
		}
		for _, c := range with {
			ref, _ := RefOf(c)
			tcp := byRef[ref]
			if tcp == nil {
				// Offline, a manifest may leave the namespace out, as GetControlPlane allows.
				tcp = byRef[Ref{Name: ref.Name}]
			}
			if tcp != nil {
				out[Key(c)] = Column(tcp)
			}
		}
		return out, nil
	}

	type answer struct {
		tcp *stewardv1alpha1.TenantControlPlane
		err error
	}
	answers := make([]answer, len(with))
	var wg sync.WaitGroup
	for i, c := range with {
		wg.Go(func() {
			ref, _ := RefOf(c)
			answers[i].tcp, answers[i].err = cps.GetControlPlane(ctx, ref.Namespace, ref.Name)
		})
	}
	wg.Wait()
	for i, c := range with {
		switch a := answers[i]; {
		case a.err == nil:
			out[Key(c)] = Column(a.tcp)
		case apierrors.IsNotFound(a.err):
			// No control plane: nothing limits the cluster's writes.
		default:
			fail(c, a.err)
		}
	}
	return out, firstErr
}

// tolerated are the errors that only mean "cannot tell": no Steward API, or no permission.
func tolerated(err error) bool {
	return errors.Is(err, store.ErrNoControlPlaneAPI) || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err)
}

// notFound is a NotFound status error whose message is msg alone, as the server words
// its own 404s: the command layer maps it to exit 3 like any other.
func notFound(format string, a ...any) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotFound,
		Reason:  metav1.StatusReasonNotFound,
		Message: fmt.Sprintf(format, a...),
	}}
}
