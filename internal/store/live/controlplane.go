package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// This file implements store.ControlPlanes on a live cluster: Steward's
// TenantControlPlanes (docs/rules.md §11), through a REST client of their own group. Before
// the first request the store asks API discovery whether the server serves
// tenantcontrolplanes in steward.butlerlabs.dev/v1alpha1: without Steward's CRD every
// request would be a bare 404, which would read as "no such control plane".

// controlPlaneResource is the plural of TenantControlPlane.
const controlPlaneResource = "tenantcontrolplanes"

// controlPlaneKind is the kind discovery must report for controlPlaneResource.
const controlPlaneKind = "TenantControlPlane"

// controlPlaneClients holds each Store's Steward client, built and checked on first use.
var controlPlaneClients sync.Map // *Store -> *controlPlaneClient

type controlPlaneClient struct {
	mu     sync.Mutex
	client *butlerclient.Client
	// checked is set once discovery answered; err is its verdict (nil: served).
	checked bool
	err     error
}

// controlPlanes returns the Steward client once discovery says the server serves
// TenantControlPlanes; otherwise an error wrapping store.ErrNoControlPlaneAPI. A definite
// answer is kept for the life of the Store; a failed discovery request is tried again on
// the next call.
func (s *Store) controlPlanes(ctx context.Context) (*controlPlaneClient, error) {
	v, _ := controlPlaneClients.LoadOrStore(s, &controlPlaneClient{})
	c := v.(*controlPlaneClient)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client == nil {
		client, err := butlerclient.NewForGroup(s.config, stewardv1alpha1.GroupVersion, stewardv1alpha1.AddToScheme)
		if err != nil {
			return nil, err
		}
		c.client = client
	}
	if !c.checked {
		err := s.discoverControlPlanes(ctx, c.client)
		if err != nil && !errors.Is(err, store.ErrNoControlPlaneAPI) {
			return nil, err // transient or refused: not a verdict
		}
		c.checked, c.err = true, err
	}
	if c.err != nil {
		return nil, c.err
	}
	return c, nil
}

// discoverControlPlanes asks the discovery document of steward.butlerlabs.dev/v1alpha1
// whether it lists tenantcontrolplanes. When the version is not served at all, the group's
// document says which versions are, for the message.
func (s *Store) discoverControlPlanes(ctx context.Context, client *butlerclient.Client) error {
	gv := stewardv1alpha1.GroupVersion
	what := controlPlaneResource + "." + gv.Group + "/" + gv.Version
	raw, err := client.Get().AbsPath("/apis", gv.Group, gv.Version).Do(ctx).Raw()
	if apierrors.IsNotFound(err) {
		msg := fmt.Sprintf("the API server at %s does not serve %s: install Steward's CRDs on the management cluster", s.Host(), what)
		if versions := s.servedVersions(ctx, client, gv.Group); len(versions) > 0 {
			msg = fmt.Sprintf("the API server at %s serves %s only in %s, and the toolkit reads %s", s.Host(), gv.Group, strings.Join(versions, ", "), gv.Version)
		}
		return fmt.Errorf("%w: %s", store.ErrNoControlPlaneAPI, msg)
	}
	if err != nil {
		return err
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("reading the discovery document of %s: %w", gv, err)
	}
	for _, r := range list.APIResources {
		if r.Name == controlPlaneResource && r.Kind == controlPlaneKind && r.Namespaced {
			return nil
		}
	}
	return fmt.Errorf("%w: the API server at %s serves %s but no namespaced %s resource %q", store.ErrNoControlPlaneAPI, s.Host(), gv, controlPlaneKind, controlPlaneResource)
}

// servedVersions lists the versions the server serves of a group (none on any error).
func (s *Store) servedVersions(ctx context.Context, client *butlerclient.Client, group string) []string {
	raw, err := client.Get().AbsPath("/apis", group).Do(ctx).Raw()
	if err != nil {
		return nil
	}
	var g metav1.APIGroup
	if json.Unmarshal(raw, &g) != nil {
		return nil
	}
	var out []string
	for _, v := range g.Versions {
		out = append(out, v.Version)
	}
	return out
}

// GetControlPlane implements store.ControlPlanes.
func (s *Store) GetControlPlane(ctx context.Context, namespace, name string) (*stewardv1alpha1.TenantControlPlane, error) {
	c, err := s.controlPlanes(ctx)
	if err != nil {
		return nil, err
	}
	tcp := &stewardv1alpha1.TenantControlPlane{}
	if err := c.client.Get().Namespace(namespace).Resource(controlPlaneResource).Name(name).Do(ctx).Into(tcp); err != nil {
		return nil, err
	}
	cleanControlPlane(tcp)
	return tcp, nil
}

// ListControlPlanes implements store.ControlPlanes, PageSize objects per request, in one
// consistent view (butlerclient.List).
func (s *Store) ListControlPlanes(ctx context.Context, namespace string) ([]stewardv1alpha1.TenantControlPlane, error) {
	c, err := s.controlPlanes(ctx)
	if err != nil {
		return nil, err
	}
	out, err := butlerclient.List(ctx, c.client, namespace, controlPlaneResource,
		func(l *stewardv1alpha1.TenantControlPlaneList) []stewardv1alpha1.TenantControlPlane { return l.Items })
	if err != nil {
		return nil, err
	}
	for i := range out {
		cleanControlPlane(&out[i])
	}
	sort.Slice(out, func(i, j int) bool { return less(&out[i].ObjectMeta, &out[j].ObjectMeta) })
	return out, nil
}

// SetWritePermissions implements store.ControlPlanes with one JSON merge patch (RFC 7386)
// of the three fields of spec.writePermissions, nothing else: WritePermissionsPatch.
// No resourceVersion goes with it: the patch names the whole wanted state of the fields
// it touches, so a change made in between to them is meant to be overwritten, and a
// change to anything else is kept.
func (s *Store) SetWritePermissions(ctx context.Context, namespace, name string, p stewardv1alpha1.Permissions) (*stewardv1alpha1.TenantControlPlane, store.Result, error) {
	c, err := s.controlPlanes(ctx)
	if err != nil {
		return nil, store.Result{}, err
	}
	body, err := WritePermissionsPatch(p)
	if err != nil {
		return nil, store.Result{}, err
	}
	out := &stewardv1alpha1.TenantControlPlane{}
	err = c.client.Patch(types.MergePatchType).Namespace(namespace).Resource(controlPlaneResource).Name(name).
		Body(body).Do(ctx).Into(out)
	if err != nil {
		return nil, store.Result{}, apiError(err)
	}
	cleanControlPlane(out)
	return out, store.Result{Location: s.Host()}, nil
}

// WritePermissionsPatch is the JSON merge patch that makes spec.writePermissions exactly
// p: every blocked field true, every other one null (removed). Unknown fields of
// writePermissions and of the rest of the object are not named, so they stay.
func WritePermissionsPatch(p stewardv1alpha1.Permissions) ([]byte, error) {
	field := func(blocked bool) any {
		if blocked {
			return true
		}
		return nil
	}
	return json.Marshal(map[string]any{"spec": map[string]any{"writePermissions": map[string]any{
		"blockCreation": field(p.BlockCreate),
		"blockUpdate":   field(p.BlockUpdate),
		"blockDeletion": field(p.BlockDelete),
	}}})
}

// cleanControlPlane makes a server object look like one read from a manifest, as clean
// does for Butler objects.
func cleanControlPlane(tcp *stewardv1alpha1.TenantControlPlane) {
	tcp.APIVersion = stewardv1alpha1.GroupVersion.String()
	tcp.Kind = controlPlaneKind
	tcp.ManagedFields = nil
}
