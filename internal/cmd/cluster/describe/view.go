package describe

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/clusterview"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/controlplane"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// View is what describe shows, the command's view (docs/output.md). Times are absolute
// here; the tree prints them as ages.
type View struct {
	Cluster     string       `json:"cluster"`
	Namespace   string       `json:"namespace"`
	Team        string       `json:"team"`
	Environment string       `json:"environment,omitempty"`
	Owner       string       `json:"owner,omitempty"`
	Provider    string       `json:"provider,omitempty"`
	Created     *metav1.Time `json:"created,omitempty"`
	// Expires is the cluster's expiry (butler.butlerlabs.dev/expires-at), when it has one.
	Expires *metav1.Time `json:"expires,omitempty"`
	// ExpiresInvalid is the annotation's value when it is no RFC 3339 time.
	ExpiresInvalid string        `json:"expiresInvalid,omitempty"`
	Phase          string        `json:"phase,omitempty"`
	Kubernetes     Kubernetes    `json:"kubernetes"`
	Conditions     []Condition   `json:"conditions"`
	ControlPlane   *ControlPlane `json:"controlPlane,omitempty"`
	Workers        Workers       `json:"workers"`
	Addons         []Addon       `json:"addons"`
	// Events are the cluster's recent core/v1 Events, oldest first (live only: nil offline).
	Events []Event `json:"events,omitempty"`
	// Unreadable says what could not be read (no permission, no such API), by part.
	Unreadable map[string]string `json:"unreadable,omitempty"`
}

// Kubernetes is the version asked for and the one the controller reports running.
type Kubernetes struct {
	Version  string `json:"version"`
	Observed string `json:"observed,omitempty"`
}

// Condition is one status condition.
type Condition struct {
	Type               string       `json:"type"`
	Status             string       `json:"status"`
	Reason             string       `json:"reason,omitempty"`
	Message            string       `json:"message,omitempty"`
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
}

// ControlPlane is the Steward TenantControlPlane and the writes it blocks.
type ControlPlane struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Found     bool   `json:"found"`
	// Writes is the mode (read-only, quota, none, custom), Blocked what it blocks.
	Writes  string `json:"writes,omitempty"`
	Blocked string `json:"blocked,omitempty"`
	Status  string `json:"status,omitempty"`
}

// Workers are the desired and ready worker nodes.
type Workers struct {
	Desired int32 `json:"desired"`
	Ready   int32 `json:"ready"`
}

// Addon is one TenantAddon of the cluster.
type Addon struct {
	Name    string `json:"name"`
	Addon   string `json:"addon"`
	Version string `json:"version"`
	Phase   string `json:"phase,omitempty"`
}

// Event is one core/v1 Event about the cluster.
type Event struct {
	Type     string       `json:"type"`
	Reason   string       `json:"reason"`
	Message  string       `json:"message"`
	Count    int32        `json:"count,omitempty"`
	LastSeen *metav1.Time `json:"lastSeen,omitempty"`
}

// MaxEvents is how many of the latest events describe shows (cluster events shows all).
const MaxEvents = 10

// build reads what the view needs beyond the cluster. Parts that cannot be read are named
// in Unreadable rather than failing the command; other errors fail it.
func build(ctx context.Context, s Store, team *v1alpha1.Team, c *v1alpha1.TenantCluster) (*View, error) {
	v := &View{Cluster: c.Name, Namespace: c.Namespace, Team: team.Name, Environment: c.Environment(),
		Owner: clusterview.Owner(*c), Phase: c.Status.Phase, Conditions: []Condition{}, Addons: []Addon{},
		Kubernetes: Kubernetes{Version: c.Spec.KubernetesVersion}}
	if !c.CreationTimestamp.IsZero() {
		t := c.CreationTimestamp
		v.Created = &t
	}
	if t, ok, err := clusterttl.Expiry(c); err != nil {
		v.ExpiresInvalid = c.Annotations[clusterttl.Annotation]
	} else if ok {
		v.Expires = &metav1.Time{Time: t}
	}
	if r := c.Spec.ProviderConfigRef; r != nil {
		ns := r.Namespace
		if ns == "" {
			ns = v1alpha1.DefaultProviderNamespace
		}
		v.Provider = ns + "/" + r.Name
	}
	v.Workers = Workers{Desired: c.Spec.Workers.Replicas, Ready: c.Status.WorkerNodesReady}
	if obs := c.Status.ObservedState; obs != nil {
		v.Kubernetes.Observed = obs.KubernetesVersion
		if obs.Workers != nil {
			v.Workers.Ready = obs.Workers.Ready
		}
	}
	for _, cond := range c.Status.Conditions {
		t := cond.LastTransitionTime
		v.Conditions = append(v.Conditions, Condition{Type: cond.Type, Status: string(cond.Status), Reason: cond.Reason, Message: cond.Message, LastTransitionTime: &t})
	}
	v.ControlPlane = controlPlaneOf(ctx, s, c, v)
	d := s
	addons, err := d.ListClusterAddons(ctx, c.Namespace, c.Name)
	if err != nil {
		v.unreadable("addons", err)
	}
	for _, a := range addons {
		v.Addons = append(v.Addons, Addon{Name: a.Name, Addon: a.Spec.Addon, Version: a.Spec.Version, Phase: a.Status.Phase})
	}
	if s.Kind() == store.Live || hasEvents(ctx, d, c) {
		evs, err := d.ListEvents(ctx, c.Namespace, v1alpha1.KindTenantCluster, c.Name)
		if err != nil {
			v.unreadable("events", err)
		}
		if len(evs) > MaxEvents {
			evs = evs[len(evs)-MaxEvents:]
		}
		v.Events = []Event{}
		for i := range evs {
			e := &evs[i]
			t := metav1.NewTime(store.EventTime(e))
			v.Events = append(v.Events, Event{Type: e.Type, Reason: e.Reason, Message: e.Message, Count: e.Count, LastSeen: &t})
		}
	}
	return v, nil
}

func (v *View) unreadable(part string, err error) {
	if v.Unreadable == nil {
		v.Unreadable = map[string]string{}
	}
	v.Unreadable[part] = err.Error()
}

// controlPlaneOf is the cluster's TenantControlPlane, nil while it has no tenant namespace.
func controlPlaneOf(ctx context.Context, s store.ControlPlanes, c *v1alpha1.TenantCluster, v *View) *ControlPlane {
	ref, ok := controlplane.RefOf(c)
	if !ok {
		return nil
	}
	cp := &ControlPlane{Namespace: ref.Namespace, Name: ref.Name}
	tcp, err := controlplane.Get(ctx, s, c)
	switch {
	case err == nil:
		p := tcp.Spec.WritePermissions
		cp.Found, cp.Writes, cp.Blocked, cp.Status = true, controlplane.Mode(p), controlplane.Blocked(p), controlplane.Status(tcp)
	case isNotFound(err):
		// Not provisioned yet: Found stays false.
	default:
		v.unreadable("controlPlane", err)
	}
	return cp
}

func isNotFound(err error) bool { return cmdutil.CodeOf(err) == cmdutil.ExitNotFound }

// hasEvents: manifests have no events, so offline the part is left out unless the store
// (a test's) has some.
func hasEvents(ctx context.Context, d store.Describer, c *v1alpha1.TenantCluster) bool {
	evs, err := d.ListEvents(ctx, c.Namespace, v1alpha1.KindTenantCluster, c.Name)
	return err == nil && len(evs) > 0
}
