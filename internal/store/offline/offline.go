// Package offline is the store over manifests on disk: a GitOps directory, files, or
// stdin. Reads come from the loaded set; writes go back into the files in place, keeping
// comments and the other documents, or into new files beside them.
//
// Runs at the same time on the same tree are serialised: Open locks the --manifests
// trees (see treeLock) before it reads them and holds the lock until Close or exit, so a
// run's reads, its checks (caps, existing names) and its writes all see one state of the
// tree, and the next run reads what this one wrote. Every run takes the lock, also those
// that only read: the reading is milliseconds, and a read-only run never sees a tree
// half-way through another run's multi-file write. A run that waits longer than
// LockTimeout gives up with a message naming the directory. Load reads without the
// lock, for tests and for callers that do their own ordering.
//
// Whatever the lock, a new file is created only if its name is still free, and every
// file is replaced whole (manifest.Write), so a crash leaves the old or the new text.
package offline

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Store serves objects from a manifest set.
type Store struct {
	paths    []string
	set      *manifest.Set
	identity policy.Identity
	// dryRun: writes are worked out and checked, and nothing reaches the disk (--dry-run).
	dryRun bool

	// mu guards the set, whose files a write reads again (migrations run several
	// clusters at once).
	mu sync.RWMutex

	lock *treeLock // held from Open to Close
}

// Open locks the manifests named by paths against other runs, then loads them (as
// Load); the lock is held until Close, or until the process exits.
func Open(ctx context.Context, paths []string, stdin io.Reader, as string, asGroups []string, opts manifest.Options) (*Store, error) {
	l, err := lockTree(ctx, paths, LockTimeout)
	if err != nil {
		return nil, err
	}
	s, err := LoadWith(paths, stdin, as, asGroups, opts)
	if err != nil {
		l.release()
		return nil, err
	}
	s.lock = l
	return s, nil
}

// Close releases the lock taken by Open.
func (s *Store) Close() error {
	s.lock.release()
	s.lock = nil
	return nil
}

// Load loads the manifests named by paths, reading "-" from stdin, with the default
// manifest.Options.
func Load(paths []string, stdin io.Reader, as string, asGroups []string) (*Store, error) {
	return LoadWith(paths, stdin, as, asGroups, manifest.Options{})
}

// LoadWith is Load with options (strict mode, read limits). Whatever cannot be read is an
// error with exit status 2, never skipped.
func LoadWith(paths []string, stdin io.Reader, as string, asGroups []string, opts manifest.Options) (*Store, error) {
	set, err := manifest.LoadWith(paths, stdin, opts)
	if err != nil {
		return nil, storeerr.BadInput(err)
	}
	return &Store{paths: paths, set: set, identity: policy.Identity{Username: as, Groups: asGroups}}, nil
}

// write writes changes to the manifests.
func (s *Store) write(changes []manifest.Change) error {
	if s.dryRun {
		return manifest.Render(changes)
	}
	return manifest.Write(changes)
}

// SetDryRun makes every write of the store stop before the disk: the edit is worked out
// and checked whole (the document found, the conflict tested, the new text rendered) and
// no file is written, created or removed (--dry-run).
func (s *Store) SetDryRun() { s.dryRun = true }

// Kind implements store.Store.
func (s *Store) Kind() store.Kind { return store.Manifests }

// Server implements store.Store: manifests have no server.
func (s *Store) Server() (store.Server, error) { return nil, store.ErrNoServer }

// Identity is --as and --as-group: offline there is no server to ask.
func (s *Store) Identity(context.Context) (policy.Identity, error) {
	if s.identity.Username == "" {
		return policy.Identity{}, storeerr.Missing(storeerr.NeedIdentity, "working on manifests, there is no server to say who you are")
	}
	return s.identity, nil
}

// PlatformAdmin is the Team webhook's test on the manifests' User objects; with no User
// matching, only --as-group system:masters makes a platform admin (policy.OfflinePlatformAdmin).
func (s *Store) PlatformAdmin(_ context.Context, id policy.Identity) (bool, string, error) {
	ok, why := policy.OfflinePlatformAdmin(id, values(s.set.Users()))
	return ok, why, nil
}

// ListTeams implements store.Store.
func (s *Store) ListTeams(context.Context) ([]v1alpha1.Team, error) {
	teams := values(s.set.Teams())
	sort.Slice(teams, func(i, j int) bool { return teams[i].Name < teams[j].Name })
	return teams, nil
}

// GetTeam implements store.Store.
func (s *Store) GetTeam(_ context.Context, name string) (*v1alpha1.Team, error) {
	if t := s.set.Team(name); t != nil {
		c := *t.DeepCopy()
		return &c, nil
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("teams"), name)
}

// teamsByName are the set's Teams by name, the first of each name (as Set.Team finds it):
// what places a cluster written without a namespace (manifest.Cluster.Place).
func (s *Store) teamsByName() map[string]*v1alpha1.Team {
	m := map[string]*v1alpha1.Team{}
	for _, t := range s.set.Teams() {
		if _, dup := m[t.Name]; !dup {
			m[t.Name] = t
		}
	}
	return m
}

// ListProviderConfigs implements store.Store.
func (s *Store) ListProviderConfigs(_ context.Context, namespace string) ([]v1alpha1.ProviderConfig, error) {
	var out []v1alpha1.ProviderConfig
	for _, p := range values(s.set.ProviderConfigs()) {
		if p.Namespace == "" {
			p.Namespace = v1alpha1.PlatformNamespace
		}
		if namespace == "" || p.Namespace == namespace {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// GetProviderConfig implements store.Store.
func (s *Store) GetProviderConfig(ctx context.Context, namespace, name string) (*v1alpha1.ProviderConfig, error) {
	list, _ := s.ListProviderConfigs(ctx, namespace)
	for i := range list {
		if list[i].Name == name {
			return &list[i], nil
		}
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("providerconfigs"), name)
}

// ListUsers implements store.Store.
func (s *Store) ListUsers(context.Context) ([]v1alpha1.User, error) {
	return values(s.set.Users()), nil
}

// ListIdentityProviders implements store.Store.
func (s *Store) ListIdentityProviders(context.Context) ([]v1alpha1.IdentityProvider, error) {
	return values(s.set.IdentityProviders()), nil
}

// target is where new objects go: the first --manifests path. A directory gets a new file
// under sub/; a file gets further documents.
func (s *Store) target(sub, name string) (string, error) {
	p := s.paths[0]
	if p == "-" {
		return "", storeerr.Missing(storeerr.NeedWritableSource, "cannot write: the manifests came from stdin")
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return p, nil
	}
	file := filepath.Join(p, sub, name+".yaml")
	if _, err := os.Stat(file); err == nil {
		return "", fmt.Errorf("cannot write %s: %w", file, storeerr.ErrFileExists)
	}
	return file, nil
}

// CreateCluster appends the cluster and its addons as new documents.
func (s *Store) CreateCluster(ctx context.Context, c *v1alpha1.TenantCluster, addons []v1alpha1.TenantAddon) (store.Result, error) {
	if _, err := s.GetCluster(ctx, c.Namespace, c.Name); err == nil {
		return store.Result{}, apierrors.NewAlreadyExists(v1alpha1.Resource("tenantclusters"), c.Name)
	}
	file, err := s.target("clusters", c.Name)
	if err != nil {
		return store.Result{}, err
	}
	changes := []manifest.Change{{File: file, Obj: c}}
	for i := range addons {
		changes = append(changes, manifest.Change{File: file, Obj: &addons[i]})
	}
	if err := s.write(changes); err != nil {
		return store.Result{}, err
	}
	return store.Result{Location: file}, nil
}

// CreateTeam appends the team as a new document.
func (s *Store) CreateTeam(ctx context.Context, t *v1alpha1.Team) (store.Result, error) {
	if _, err := s.GetTeam(ctx, t.Name); err == nil {
		return store.Result{}, apierrors.NewAlreadyExists(v1alpha1.Resource("teams"), t.Name)
	}
	file, err := s.target("teams", t.Name)
	if err != nil {
		return store.Result{}, err
	}
	if err := s.write([]manifest.Change{{File: file, Obj: t}}); err != nil {
		return store.Result{}, err
	}
	return store.Result{Location: file}, nil
}

// UpdateTeam rewrites the team's document in place.
func (s *Store) UpdateTeam(_ context.Context, old, updated *v1alpha1.Team) (store.Result, error) {
	obj := s.set.Find(v1alpha1.KindTeam, "", old.Name)
	if obj == nil {
		return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("teams"), old.Name)
	}
	src := obj.Source
	if src.File == "-" {
		return store.Result{}, storeerr.Missing(storeerr.NeedWritableSource, "cannot write: team %q came from stdin", old.Name)
	}
	if err := s.write([]manifest.Change{{Source: &src, Obj: updated}}); err != nil {
		return store.Result{}, err
	}
	return store.Result{Location: src.File}, nil
}

var _ store.Store = (*Store)(nil)

// values copies the set's objects, so callers may change them without touching the set.
func values[T any, P interface {
	*T
	DeepCopy() *T
}](ps []P) []T {
	out := make([]T, 0, len(ps))
	for _, p := range ps {
		out = append(out, *p.DeepCopy())
	}
	return out
}
