// Package store is what the commands read and write Butler objects through: manifests on
// disk (offline) or a live cluster. Both report missing objects as apimachinery NotFound
// errors and refusals as Forbidden, so commands map them to the same exit codes.
//
// Store is the one interface both stores implement whole; what only a live cluster can do
// is behind Store.Server. A new capability is a method here (or on Server, when manifests
// cannot do it), implemented by internal/store/live, internal/store/offline and the fake of
// internal/store/storetest.
package store

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Kind is which store a command works on.
type Kind string

// The stores.
const (
	// Manifests is the offline store: manifests on disk (--manifests).
	Manifests Kind = "manifests"
	// Live is a Butler management cluster.
	Live Kind = "live"
)

// Store reads and writes Butler objects. Both stores implement all of it.
type Store interface {
	// Kind says which store this is, for messages and for what differs in kind (a file
	// is named after a write offline; a server is not).
	Kinded
	Served

	Reader
	Writer
	Describer
	CreationPolicies
	Migrator
	Providers
	ControlPlanes
	ClusterWriter
	TeamDeleter
	Addons
	ClusterUpgrader
	Networks
	ClusterApplier
	ObjectApplier
}

// ErrNoServer is what Store.Server returns offline: the manifests have no server. It is a
// storeerr.MissingError for NeedServer, so the command layer words it once, naming the
// flag, and exits 2.
var ErrNoServer = storeerr.Missing(storeerr.NeedServer, "the manifests have no server")

// Server is what only a live store does.
type Server interface {
	ClusterPager
	ClusterWatcher
	ClusterServer
	// Connection is the REST config the store talks with (each request with its deadline),
	// for what reads more than Butler's objects: the installation checks of doctor.
	Connection() *rest.Config
	// CredentialSource says where the credentials came from (a kubeconfig and context,
	// butler-cli's login, a pod's service account), for auth whoami.
	CredentialSource() string
}

// Reader reads Butler objects and says who is asking.
type Reader interface {
	// Identity is who is asking, as the server (or, offline, --as/--as-group) says.
	Identity(ctx context.Context) (policy.Identity, error)
	// PlatformAdmin reports whether the identity is a platform admin, and why.
	PlatformAdmin(ctx context.Context, id policy.Identity) (bool, string, error)

	ListTeams(ctx context.Context) ([]v1alpha1.Team, error)
	GetTeam(ctx context.Context, name string) (*v1alpha1.Team, error)
	// ListClusters lists TenantClusters in a namespace ("" for all namespaces).
	ListClusters(ctx context.Context, namespace string) ([]v1alpha1.TenantCluster, error)
	// ListClusterPages gives what ListClusters lists, in its order, a page at a time, so a
	// command that keeps less than each cluster whole (a table's rows) never holds them
	// all (a tree of manifests reads its clusters again page by page).
	ListClusterPages(ctx context.Context, namespace string, fn func([]v1alpha1.TenantCluster) error) error
	GetCluster(ctx context.Context, namespace, name string) (*v1alpha1.TenantCluster, error)
	ListProviderConfigs(ctx context.Context, namespace string) ([]v1alpha1.ProviderConfig, error)
	GetProviderConfig(ctx context.Context, namespace, name string) (*v1alpha1.ProviderConfig, error)
	ListUsers(ctx context.Context) ([]v1alpha1.User, error)
	ListIdentityProviders(ctx context.Context) ([]v1alpha1.IdentityProvider, error)
	// ListClusterCreationPolicies lists every ClusterCreationPolicy, by name. Live, a
	// server that does not serve them (the CRD is not installed) has none, as its webhook
	// takes it; any other failure is an error.
	ListClusterCreationPolicies(ctx context.Context) ([]v1alpha1.ClusterCreationPolicy, error)
	GetClusterCreationPolicy(ctx context.Context, name string) (*v1alpha1.ClusterCreationPolicy, error)
}

// Writer creates clusters and teams and changes teams.
type Writer interface {
	// CreateCluster creates the cluster and then its named addons.
	CreateCluster(ctx context.Context, c *v1alpha1.TenantCluster, addons []v1alpha1.TenantAddon) (Result, error)
	CreateTeam(ctx context.Context, t *v1alpha1.Team) (Result, error)
	// UpdateTeam writes the team's new spec; old is what the caller read.
	UpdateTeam(ctx context.Context, old, updated *v1alpha1.Team) (Result, error)
}

// Describer is what butlerctl cluster describe and cluster events read about a cluster.
type Describer interface {
	// ListClusterAddons lists the TenantAddons of namespace whose spec.clusterRef names
	// cluster, sorted by name.
	ListClusterAddons(ctx context.Context, namespace, cluster string) ([]v1alpha1.TenantAddon, error)
	// ListEvents lists the core/v1 Events of namespace about the object of that kind and
	// name, oldest first (by last, else first, else creation time). At most MaxEvents are
	// read. Offline there are none.
	ListEvents(ctx context.Context, namespace, kind, name string) ([]corev1.Event, error)
}

// CreationPolicies writes ClusterCreationPolicies (butleradm policy).
type CreationPolicies interface {
	// CreateClusterCreationPolicy creates p (offline: DIR/policies/NAME.yaml, or a further
	// document of the --manifests file); AlreadyExists when one of that name exists.
	CreateClusterCreationPolicy(ctx context.Context, p *v1alpha1.ClusterCreationPolicy) (Result, error)
	// UpdateClusterCreationPolicy replaces p's spec. Live it carries p's resourceVersion,
	// so a policy changed since it was read is refused with a Conflict; offline its
	// document is rewritten in place.
	UpdateClusterCreationPolicy(ctx context.Context, p *v1alpha1.ClusterCreationPolicy) (Result, error)
	// DeleteClusterCreationPolicy deletes the policy of that name; NotFound when none.
	DeleteClusterCreationPolicy(ctx context.Context, name string) (Result, error)
}

// Result says where a write went: a file offline, a server live.
type Result struct {
	Location string
}

// Served is the way to what only a live cluster can do.
type Served interface {
	// Server is what only a live cluster can do: server-side dry run, watches, paged
	// lists and Secret values. Offline it returns ErrNoServer.
	Server() (Server, error)
}

// Kinded says which store it is: what a command that reports where a write went needs.
type Kinded interface {
	Kind() Kind
}

// Where is where a write went, for the line that reports it: the file offline; nothing
// live, where kubectl names no server either.
func Where(res Result, s Kinded) string {
	if s == nil || s.Kind() == Live {
		return ""
	}
	return res.Location
}

// Migrator moves TenantClusters between environments (docs/rules.md §10).
type Migrator interface {
	// MigrateCluster puts c, as the caller read it, into environment env in two steps:
	// first one patch that sets the environment label and the migration-operation
	// annotation "true" and touches nothing else, carrying c's resourceVersion so that a
	// cluster changed since it was read is refused with a Conflict (the caller re-reads
	// and re-plans it) instead of overwritten; then a patch that removes the annotation,
	// so no cluster keeps a standing bypass of the server's guard on the label. When c is
	// already in env only the second step runs (a leftover annotation is removed), and
	// when it has no annotation either nothing is sent.
	//
	// On an error, MigrateResult.Labeled says whether the first step went through: then
	// the annotation may still be there, and running the migration again removes it.
	MigrateCluster(ctx context.Context, c *v1alpha1.TenantCluster, env string) (MigrateResult, error)
}

// MigrateResult is what MigrateCluster did.
type MigrateResult struct {
	// Location is where the write went: a file offline, a server live.
	Location string
	// Labeled is true once the environment label is set (by this call's first patch).
	Labeled bool
	// Cleaned is true once the migration annotation is gone.
	Cleaned bool
	// ResourceVersion is the cluster's resourceVersion after the last write (live).
	ResourceVersion string
}

// Providers registers infrastructure providers: ProviderConfigs and the
// Secrets holding their credentials. Secret values go in and never come out: SecretKeys
// returns key names only, and no method puts a value in a result or an error.
//
// The methods are single writes; the caller orders them (the Secret before the
// ProviderConfig that references it) and undoes the Secret when the ProviderConfig fails.
type Providers interface {
	// CreateSecret creates the Secret; an existing one of that name is AlreadyExists.
	// Offline it is a manifest file of its own (DIR/secrets/NAME.yaml, mode 0600, data
	// base64-encoded), never a document in a shared file.
	CreateSecret(ctx context.Context, secret *corev1.Secret) (Result, error)
	// DeleteSecret deletes a Secret (offline: its document, and its file once empty).
	DeleteSecret(ctx context.Context, namespace, name string) (Result, error)
	// SecretKeys returns the sorted key names of a Secret's data (and, offline, of its
	// stringData); NotFound when there is no such Secret.
	SecretKeys(ctx context.Context, namespace, name string) ([]string, error)
	// ReplaceSecretData makes data the Secret's whole data: keys not in it are removed.
	ReplaceSecretData(ctx context.Context, namespace, name string, data map[string][]byte) (Result, error)
	// CreateProviderConfig creates pc in pc.Namespace (offline: DIR/providers/NAME.yaml,
	// or a further document of the --manifests file).
	CreateProviderConfig(ctx context.Context, pc *v1alpha1.ProviderConfig) (Result, error)
	// DeleteProviderConfig deletes a ProviderConfig (offline: its document, and its file
	// once empty). It does not check for TenantClusters using it: the caller does.
	DeleteProviderConfig(ctx context.Context, namespace, name string) (Result, error)
}

// ErrNoControlPlaneAPI is wrapped by the errors of a ControlPlanes store whose server does
// not serve tenantcontrolplanes.steward.butlerlabs.dev/v1alpha1 (Steward's CRD is not
// installed), so that commands tell it from a missing object: a missing API is no
// TenantControlPlane's 404.
var ErrNoControlPlaneAPI = errors.New("the TenantControlPlane API (steward.butlerlabs.dev/v1alpha1) is not installed")

// ControlPlanes reads Steward TenantControlPlanes and limit their
// tenants' writes. A TenantCluster's control plane has the cluster's name, in the
// namespace status.tenantNamespace of the cluster.
type ControlPlanes interface {
	// GetControlPlane reads one TenantControlPlane; NotFound when there is none.
	GetControlPlane(ctx context.Context, namespace, name string) (*stewardv1alpha1.TenantControlPlane, error)
	// ListControlPlanes lists the TenantControlPlanes of a namespace ("" for all
	// namespaces), paginated live, in one consistent view.
	ListControlPlanes(ctx context.Context, namespace string) ([]stewardv1alpha1.TenantControlPlane, error)
	// SetWritePermissions makes spec.writePermissions of the TenantControlPlane exactly p
	// and changes nothing else: live, one JSON merge patch that sets each blocked field
	// to true and removes the others (an unfrozen control plane keeps an empty
	// writePermissions, as Steward writes it); offline, an in-place edit of its document.
	// It returns the object as written.
	SetWritePermissions(ctx context.Context, namespace, name string, p stewardv1alpha1.Permissions) (*stewardv1alpha1.TenantControlPlane, Result, error)
}

// ErrNoSecretKey is wrapped by SecretValue's error when the Secret exists but holds none
// of the keys asked for.
var ErrNoSecretKey = errors.New("the Secret holds none of the keys")

// ClusterWriter scales and deletes TenantClusters.
type ClusterWriter interface {
	// ScaleCluster makes spec.workers.replicas of c, as the caller read it, replicas and
	// changes nothing else. Live it is one JSON merge patch of that field carrying c's
	// resourceVersion, so a cluster changed since it was read is refused with a Conflict
	// (the caller reads it again, checks again and retries) instead of overwritten;
	// offline it is an in-place edit of the cluster's document (only that line changes;
	// comments, other keys and documents stay), refused with a Conflict when the document
	// no longer has c's spec. It returns the cluster as written.
	ScaleCluster(ctx context.Context, c *v1alpha1.TenantCluster, replicas int32) (*v1alpha1.TenantCluster, Result, error)
	// DeleteCluster deletes c. Live the delete carries c's uid as a precondition, so a
	// cluster deleted and created again under the same name since it was read is not
	// deleted (Conflict); offline the cluster's document is removed from its file (and
	// the file, once nothing else is left in it). TenantAddons are left to the controller
	// (live) and to the author of the manifests (offline).
	DeleteCluster(ctx context.Context, c *v1alpha1.TenantCluster) (Result, error)
}

// TeamDeleter deletes Teams.
type TeamDeleter interface {
	// DeleteTeam deletes t. Live the delete carries t's uid as a precondition, so a team
	// deleted and created again under the same name since it was read is not deleted
	// (Conflict); offline the team's document is removed from its file (and the file, once
	// nothing else is left in it).
	DeleteTeam(ctx context.Context, t *v1alpha1.Team) (Result, error)
}

// Addons reads and writes TenantAddons.
type Addons interface {
	// ListAddons lists the TenantAddons in a namespace, by name.
	ListAddons(ctx context.Context, namespace string) ([]v1alpha1.TenantAddon, error)
	// CreateAddon creates a TenantAddon (AlreadyExists when one has its name). Offline it
	// is a new document in the file of the cluster it names.
	CreateAddon(ctx context.Context, a *v1alpha1.TenantAddon) (Result, error)
	// DeleteAddon deletes a TenantAddon; live with its uid as precondition.
	DeleteAddon(ctx context.Context, a *v1alpha1.TenantAddon) (Result, error)
}

// ClusterUpgrader changes a TenantCluster's Kubernetes version (butlerctl cluster upgrade)
// and its spec (butlerctl cluster edit).
type ClusterUpgrader interface {
	// UpgradeCluster makes spec.kubernetesVersion of c, as the caller read it, version and
	// changes nothing else. Live it is one JSON merge patch of that field carrying c's
	// resourceVersion: a cluster changed since it was read is a Conflict, which the caller
	// reports rather than retries (an upgrade decided on a stale read must be decided
	// again by a person). Offline it is an in-place edit of the cluster's document, a
	// Conflict when the document no longer has c's spec. It returns the cluster as written.
	UpgradeCluster(ctx context.Context, c *v1alpha1.TenantCluster, version string) (*v1alpha1.TenantCluster, Result, error)
	// EditCluster makes the spec of c, as the caller read it, spec, and changes nothing
	// outside the spec. Live it is one JSON merge patch of the spec fields that differ,
	// carrying c's resourceVersion: a cluster changed since it was read is a Conflict,
	// reported rather than retried (the edit was decided on what was read). Offline it is
	// an in-place edit of the cluster's document keeping comments, a Conflict when the
	// document no longer has c's spec. It returns the cluster as written.
	EditCluster(ctx context.Context, c *v1alpha1.TenantCluster, spec v1alpha1.TenantClusterSpec) (*v1alpha1.TenantCluster, Result, error)
}

// ClusterWatcher watches every TenantCluster of a namespace ("" for all namespaces), from
// resourceVersion ("" for the current state first, as ADDED events), with bookmarks:
// cluster list --watch. Live only (Server).
type ClusterWatcher interface {
	WatchClusters(ctx context.Context, namespace, resourceVersion string) (watch.Interface, error)
}

// ClusterServer is what only a live store does with TenantClusters and Secrets (Server).
type ClusterServer interface {
	// DryRunCreateCluster sends the cluster and then each addon with server-side dry run
	// (dryRun=All): every admission step runs, webhooks included, and nothing is stored.
	// It returns the objects as the server answered.
	DryRunCreateCluster(ctx context.Context, c *v1alpha1.TenantCluster, addons []v1alpha1.TenantAddon) (*v1alpha1.TenantCluster, []v1alpha1.TenantAddon, error)
	// WatchCluster watches one TenantCluster, from resourceVersion ("" for the current
	// state first). Event objects are *v1alpha1.TenantCluster, or a *metav1.Status on
	// watch.Error (410 Gone when resourceVersion is too old).
	WatchCluster(ctx context.Context, namespace, name, resourceVersion string) (watch.Interface, error)
	// SecretValue reads one value of a Secret: that of the first of keys the Secret holds
	// with a non-empty value, and which key it was. NotFound when there is no such Secret;
	// an error wrapping ErrNoSecretKey when it holds none of keys. The value is returned to
	// the caller only: it is in no error and no log.
	SecretValue(ctx context.Context, namespace, name string, keys ...string) (string, []byte, error)
	// AnnotateCluster sets one annotation of c, as the caller read it, and changes nothing
	// else: one JSON merge patch carrying c's resourceVersion, so a cluster changed since it
	// was read is a Conflict. It returns the cluster as written (cluster extend).
	AnnotateCluster(ctx context.Context, c *v1alpha1.TenantCluster, key, value string) (*v1alpha1.TenantCluster, error)
	// DeleteClusterAsRead deletes c as the caller read it: the delete carries c's uid and
	// resourceVersion as preconditions, so a cluster changed since (its expiry moved, or
	// deleted and created again) is a Conflict and stays. With dryRun it is sent with
	// dryRun=All: RBAC and every admission step decide, and nothing is deleted (cluster
	// reap asks so before it thaws a frozen cluster).
	DeleteClusterAsRead(ctx context.Context, c *v1alpha1.TenantCluster, dryRun bool) error
}

// ClusterPager is a store that lists TenantClusters a page at a time with a label selector
// the server applies, so a list of thousands shows its first rows early and only the
// matching clusters cross the wire. Live only (Server): offline, cluster list
// falls back to ListClusters and its own selector.
type ClusterPager interface {
	// PageClusters calls fn with each page of the TenantClusters of namespace ("" for all)
	// that match selector (labels.Selector syntax, "" for all), in namespace/name order.
	// restart true means the server's snapshot expired mid-list and the list began again:
	// the page is the whole list, and the pages before it are to be dropped.
	PageClusters(ctx context.Context, namespace, selector string, fn func(page []v1alpha1.TenantCluster, restart bool) error) error
}

// Networks reads NetworkPools and their IPAllocations and deletes pools (butleradm network).
type Networks interface {
	// ListNetworkPools lists the pools of a namespace, "" for every namespace.
	ListNetworkPools(ctx context.Context, namespace string) ([]v1alpha1.NetworkPool, error)
	// GetNetworkPool reads one pool; NotFound when there is none.
	GetNetworkPool(ctx context.Context, namespace, name string) (*v1alpha1.NetworkPool, error)
	// ListIPAllocations lists the IPAllocations labelled with the pool's name
	// (v1alpha1.LabelNetworkPool), in every namespace.
	ListIPAllocations(ctx context.Context, pool string) ([]v1alpha1.IPAllocation, error)
	// DeleteNetworkPool deletes a pool. It does not check its allocations: the caller does.
	DeleteNetworkPool(ctx context.Context, namespace, name string) (Result, error)
}

// ClusterApplier puts TenantClusters into the store whole, as `apply -f` gives them.
type ClusterApplier interface {
	// ApplyClusters applies each of clusters and answers for each, in their order. Live it
	// is one server-side apply patch per cluster (several at once, each with the store's
	// deadline) under o.FieldManager, forced with o.Force, with dryRun=All when o.DryRun:
	// a cluster whose fields another manager owns is the server's Conflict, in that
	// cluster's Applied.Err, and the others go on. Offline each cluster is merged over its
	// document as a first apply merges (MergeApplied) and edited in place, keeping
	// comments, or written as a new file (DIR/clusters/NAME.yaml, or a further document
	// of the --manifests file): all in one write or nothing, the error returned; with
	// o.DryRun nothing is written and Applied says where it would go.
	ApplyClusters(ctx context.Context, clusters []*v1alpha1.TenantCluster, o ApplyOptions) ([]Applied, error)
}

// ObjectApplier puts butleradm's kinds (Team, ClusterCreationPolicy, ProviderConfig) into
// the store whole, as `butleradm apply -f` gives them: what ClusterApplier does for
// TenantClusters, with the same options and the same answers (a Conflict live in that
// object's AppliedObject.Err; offline one write of all or none). Secrets are not among them:
// credentials go in through Providers only.
type ObjectApplier interface {
	ApplyObjects(ctx context.Context, objs []Object, o ApplyOptions) ([]AppliedObject, error)
}
