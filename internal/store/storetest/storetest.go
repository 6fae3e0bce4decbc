// Package storetest is an in-memory store.Store for the unit tests of commands: loaded
// from the worked example (Payments) or filled by the test, with its writes recorded. It
// behaves like the offline store where the commands can tell (NotFound, AlreadyExists,
// resourceVersion conflicts) and has no server unless the test gives it one.
package storetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Store is an in-memory store.Store. Writes are recorded in Created and Updated.
type Store struct {
	Teams           []v1alpha1.Team
	Clusters        []v1alpha1.TenantCluster
	ProviderConfigs []v1alpha1.ProviderConfig
	Users           []v1alpha1.User
	ID              policy.Identity

	Created []v1alpha1.Team
	Updated []v1alpha1.Team

	// Interfere, when set, is someone else's edit of the stored team, made once, just
	// before the first UpdateTeam: that write then answers 409 Conflict, as the API server
	// does for a patch whose resourceVersion precondition is stale.
	Interfere func(t *v1alpha1.Team)
	// Conflicts counts the updates answered 409 Conflict.
	Conflicts int

	// The objects of the rest of store.Store.
	Addons        []v1alpha1.TenantAddon
	Policies      []v1alpha1.ClusterCreationPolicy
	ControlPlanes []stewardv1alpha1.TenantControlPlane
	NetworkPools  []v1alpha1.NetworkPool
	IPAllocations []v1alpha1.IPAllocation
	Events        []corev1.Event
	// Secrets holds Secret data by "namespace/name".
	Secrets map[string]map[string][]byte
	// Deleted records deletes as "kind namespace/name".
	Deleted []string
	// Live, when set, makes the store a live one with this server.
	Live store.Server
}

var _ store.Store = (*Store)(nil)

// Writes is the number of writes.
func (s *Store) Writes() int { return len(s.Created) + len(s.Updated) }

// Kind implements store.Store: the store's Live field, else Manifests.
func (s *Store) Kind() store.Kind {
	if s.Live != nil {
		return store.Live
	}
	return store.Manifests
}

// Server implements store.Store: the Live field, else ErrNoServer as offline.
func (s *Store) Server() (store.Server, error) {
	if s.Live != nil {
		return s.Live, nil
	}
	return nil, store.ErrNoServer
}

// Identity implements store.Store like the offline store: --as is required.
func (s *Store) Identity(context.Context) (policy.Identity, error) {
	if s.ID.Username == "" {
		return policy.Identity{}, storeerr.Missing(storeerr.NeedIdentity, "working on manifests, there is no server to say who you are")
	}
	return s.ID, nil
}

// PlatformAdmin implements store.Store.
func (s *Store) PlatformAdmin(_ context.Context, id policy.Identity) (bool, string, error) {
	ok, why := policy.OfflinePlatformAdmin(id, s.Users)
	return ok, why, nil
}

// ListTeams implements store.Store.
func (s *Store) ListTeams(context.Context) ([]v1alpha1.Team, error) { return s.Teams, nil }

// GetTeam implements store.Store; it returns a copy.
func (s *Store) GetTeam(_ context.Context, name string) (*v1alpha1.Team, error) {
	for i := range s.Teams {
		if s.Teams[i].Name == name {
			return s.Teams[i].DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("teams"), name)
}

// ListClusters implements store.Store.
func (s *Store) ListClusters(_ context.Context, ns string) ([]v1alpha1.TenantCluster, error) {
	var out []v1alpha1.TenantCluster
	for _, c := range s.Clusters {
		if ns == "" || c.Namespace == ns {
			out = append(out, c)
		}
	}
	return out, nil
}

// ListClusterPages implements store.Store: what ListClusters lists, as one page.
func (s *Store) ListClusterPages(ctx context.Context, ns string, fn func([]v1alpha1.TenantCluster) error) error {
	out, err := s.ListClusters(ctx, ns)
	if err != nil {
		return err
	}
	return fn(out)
}

// GetCluster implements store.Store.
func (s *Store) GetCluster(_ context.Context, ns, name string) (*v1alpha1.TenantCluster, error) {
	for i := range s.Clusters {
		if s.Clusters[i].Namespace == ns && s.Clusters[i].Name == name {
			return s.Clusters[i].DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), name)
}

// ListProviderConfigs implements store.Store.
func (s *Store) ListProviderConfigs(_ context.Context, ns string) ([]v1alpha1.ProviderConfig, error) {
	var out []v1alpha1.ProviderConfig
	for _, p := range s.ProviderConfigs {
		if ns == "" || p.Namespace == ns {
			out = append(out, p)
		}
	}
	return out, nil
}

// GetProviderConfig implements store.Store.
func (s *Store) GetProviderConfig(_ context.Context, ns, name string) (*v1alpha1.ProviderConfig, error) {
	for i := range s.ProviderConfigs {
		if s.ProviderConfigs[i].Namespace == ns && s.ProviderConfigs[i].Name == name {
			return s.ProviderConfigs[i].DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("providerconfigs"), name)
}

// ListUsers implements store.Store.
func (s *Store) ListUsers(context.Context) ([]v1alpha1.User, error) { return s.Users, nil }

// ListIdentityProviders implements store.Store.
func (s *Store) ListIdentityProviders(context.Context) ([]v1alpha1.IdentityProvider, error) {
	return nil, nil
}

// ListClusterCreationPolicies implements store.Store.
func (s *Store) ListClusterCreationPolicies(context.Context) ([]v1alpha1.ClusterCreationPolicy, error) {
	return s.Policies, nil
}

// GetClusterCreationPolicy implements store.Store.
func (s *Store) GetClusterCreationPolicy(_ context.Context, name string) (*v1alpha1.ClusterCreationPolicy, error) {
	for i := range s.Policies {
		if s.Policies[i].Name == name {
			return s.Policies[i].DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(v1alpha1.Resource("clustercreationpolicies"), name)
}

// CreateCluster implements store.Store.
func (s *Store) CreateCluster(_ context.Context, c *v1alpha1.TenantCluster, _ []v1alpha1.TenantAddon) (store.Result, error) {
	s.Clusters = append(s.Clusters, *c.DeepCopy())
	return store.Result{}, nil
}

// CreateTeam implements store.Store.
func (s *Store) CreateTeam(ctx context.Context, t *v1alpha1.Team) (store.Result, error) {
	if _, err := s.GetTeam(ctx, t.Name); err == nil {
		return store.Result{}, apierrors.NewAlreadyExists(v1alpha1.Resource("teams"), t.Name)
	}
	s.Teams = append(s.Teams, *t.DeepCopy())
	s.Created = append(s.Created, *t.DeepCopy())
	return store.Result{Location: "teams/" + t.Name + ".yaml"}, nil
}

// errModified is the API server's message for a stale resourceVersion.
var errModified = errors.New("the object has been modified; please apply your changes to the latest version and try again")

// bump is the next resourceVersion.
func bump(rv string) string {
	n, _ := strconv.Atoi(rv)
	return strconv.Itoa(n + 1)
}

// UpdateTeam implements store.Store, with the resourceVersion precondition of the live
// store's patch: old must have been read from the current version.
func (s *Store) UpdateTeam(_ context.Context, old, updated *v1alpha1.Team) (store.Result, error) {
	for i := range s.Teams {
		if s.Teams[i].Name == old.Name {
			if f := s.Interfere; f != nil {
				s.Interfere = nil
				f(&s.Teams[i])
				s.Teams[i].ResourceVersion = bump(s.Teams[i].ResourceVersion)
			}
			if old.ResourceVersion != s.Teams[i].ResourceVersion {
				s.Conflicts++
				return store.Result{}, apierrors.NewConflict(v1alpha1.Resource("teams"), old.Name, errModified)
			}
			s.Teams[i] = *updated.DeepCopy()
			s.Teams[i].ResourceVersion = bump(old.ResourceVersion)
			s.Updated = append(s.Updated, *updated.DeepCopy())
			return store.Result{Location: "team.yaml"}, nil
		}
	}
	return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("teams"), old.Name)
}

// Payments loads examples/payments into a store acting as as.
func Payments(t testing.TB, as string) *Store {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", "payments")
	s := &Store{ID: policy.Identity{Username: as}}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		b, err := fileio.ReadFile(path, manifest.DefaultMaxFileBytes)
		if err != nil {
			return err
		}
		for _, doc := range strings.Split(string(b), "\n---\n") {
			var meta struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				return err
			}
			var dst any
			switch meta.Kind {
			case v1alpha1.KindTeam:
				s.Teams = append(s.Teams, v1alpha1.Team{})
				dst = &s.Teams[len(s.Teams)-1]
			case v1alpha1.KindTenantCluster:
				s.Clusters = append(s.Clusters, v1alpha1.TenantCluster{})
				dst = &s.Clusters[len(s.Clusters)-1]
			case v1alpha1.KindUser:
				s.Users = append(s.Users, v1alpha1.User{})
				dst = &s.Users[len(s.Users)-1]
			case v1alpha1.KindProviderConfig:
				s.ProviderConfigs = append(s.ProviderConfigs, v1alpha1.ProviderConfig{})
				dst = &s.ProviderConfigs[len(s.ProviderConfigs)-1]
			default:
				continue
			}
			if err := yaml.UnmarshalStrict([]byte(doc), dst); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
