package manifest

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// Set is every object read by Load, in the order read: the TenantClusters in Clusters,
// the others in Objects.
type Set struct {
	// Objects are the objects read but the TenantClusters (Butler's typed ones).
	Objects []Object
	// Clusters are the TenantClusters, whatever the Load kept of each (clusters.go).
	Clusters Clusters
	// LeftOut are the tool folders (ToolDirs) the walk met and did not enter, as paths
	// below the paths read.
	LeftOut []string
	// NotObjects are the documents that are YAML but not Kubernetes objects (no
	// apiVersion, kind or metadata: a tool's configuration), where each starts. Nothing
	// judges them; a caller that accounts for every document lists them.
	NotObjects []Source
	// Excluded are the paths the patterns of Options.Exclude and of the IgnoreFile of a
	// directory given left out, unread (a folder once, not its files); ExcludePatterns are
	// the patterns that applied, each once.
	Excluded, ExcludePatterns []string
}

// manifestFile reports whether a file in a directory is read by Load.
func manifestFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// Load reads manifests from paths with the default Options; see LoadWith.
func Load(paths []string, stdin io.Reader) (*Set, error) {
	return LoadWith(paths, stdin, Options{})
}

// LoadWith reads manifests from paths: a file (whatever its extension), a directory (every
// .yaml, .yml and .json file below it, hidden ones included, in lexical order; the tool
// folders of ToolDirs are left out and listed in Set.LeftOut) or "-" for stdin. Symlinks
// are followed to files and directories alike; a loop, a broken link, or anything but a regular file where a manifest is expected (a device,
// a FIFO, a socket) is an error naming it, as is a file past the limits of opts. Each
// document is decoded strictly (Decode) and then checked against its CRD (Validate). Two
// objects of the same group, kind, namespace and name are an error naming both. All
// problems found are returned together (errors.Join of *DecodeError and file errors);
// the Set is nil then.
func LoadWith(paths []string, stdin io.Reader, opts Options) (*Set, error) {
	set := &Set{}
	r := newReader(opts, nil)
	p := newPipeline(opts, newPathTable())
	r.read = func(name string, data []byte) { p.submit(len(r.errs), name, data) }
	for _, path := range paths {
		r.path(path, stdin)
	}
	errs := p.finish(set, r.errs)
	errs, set.NotObjects = splitNotObjects(errs)
	set.LeftOut = r.leftOut
	set.Excluded, set.ExcludePatterns = r.excluded, r.patterns
	if !opts.AllowDuplicates {
		errs = append(errs, set.duplicates()...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}

type objKey struct {
	group, kind, namespace, name string
}

func keyOf(o Ref) objKey {
	gv, _ := schema.ParseGroupVersion(o.APIVersion)
	ns := o.Namespace
	if clusterScoped(o.Kind) {
		ns = "" // the server ignores it
	}
	return objKey{gv.Group, o.Kind, ns, o.Name}
}

// clusterScoped reports the known kinds that live outside namespaces.
func clusterScoped(kind string) bool {
	for gvk, ki := range knownKinds {
		if gvk.Kind == kind {
			return !ki.namespaced
		}
	}
	return false
}

// Duplicates lists every object of the set whose group, kind, namespace and name an
// earlier one has, as an error naming both.
func (s *Set) Duplicates() []error { return s.duplicates() }

func (s *Set) duplicates() []error {
	var errs []error
	first := make(map[objKey]Source, len(s.Objects)+s.Clusters.Len())
	s.inOrder(func(o Ref) {
		if o.Name == "" {
			return
		}
		k := keyOf(o)
		if f, dup := first[k]; dup {
			errs = append(errs, &DecodeError{File: o.Source.File, Doc: o.Source.Doc, Item: o.Source.Item, Line: o.Source.Line,
				Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Msg: fmt.Sprintf("duplicate object: also defined at %s", f)})
			return
		}
		first[k] = o.Source
	})
	return errs
}

// Add appends an object, refusing a duplicate; a TenantCluster joins Clusters, held whole.
func (s *Set) Add(o Object) error {
	fillIdentity(&o)
	k := keyOf(refOf(&o))
	var dup *Source
	s.inOrder(func(e Ref) {
		if dup == nil && o.Name != "" && keyOf(e) == k {
			src := e.Source
			dup = &src
		}
	})
	if dup != nil {
		return fmt.Errorf("duplicate %s %q: already defined at %s", o.Kind, qualified(o.Namespace, o.Name), *dup)
	}
	s.add(o)
	return nil
}

// add appends o, a TenantCluster to Clusters, in the order read.
func (s *Set) add(o Object) {
	if isCluster(&o) {
		s.Clusters.list = append(s.Clusters.list, wholeEntry(o, len(s.Objects)))
		return
	}
	s.Objects = append(s.Objects, o)
}

// SourceOf returns where a typed object of the set was read from, or nil for an object
// that is not in the set (compared by pointer; a cluster held whole is found too).
func (s *Set) SourceOf(obj runtime.Object) *Source {
	for i := range s.Objects {
		if s.Objects[i].Obj == obj {
			src := s.Objects[i].Source
			return &src
		}
	}
	for i := range s.Clusters.list {
		if e := &s.Clusters.list[i]; e.obj != nil && e.obj.Obj == obj {
			src := e.Source
			return &src
		}
	}
	return nil
}

// Find returns the object of a kind with that namespace and name, or nil. When no object
// has that namespace exactly, one whose manifest leaves the namespace out matches too
// (GitOps trees often leave it to kustomize). TenantClusters are not among Objects: it
// finds none (Clusters.Find does).
func (s *Set) Find(kind, namespace, name string) *Object {
	var loose *Object
	for i := range s.Objects {
		o := &s.Objects[i]
		if o.Kind != kind || o.Name != name {
			continue
		}
		if o.Namespace == namespace || clusterScoped(kind) {
			return o
		}
		if o.Namespace == "" && loose == nil {
			loose = o
		}
	}
	return loose
}

func typed[T runtime.Object](s *Set) []T {
	var out []T
	for _, o := range s.Objects {
		if t, ok := o.Obj.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

func find[T runtime.Object](s *Set, kind, namespace, name string) T {
	var zero T
	if o := s.Find(kind, namespace, name); o != nil {
		if t, ok := o.Obj.(T); ok {
			return t
		}
	}
	return zero
}

// Teams returns every Team.
func (s *Set) Teams() []*v1alpha1.Team { return typed[*v1alpha1.Team](s) }

// TenantClusters returns every TenantCluster, each whole (read again when the Load kept a
// record of it): for a small set; a large one is read with Clusters.Each.
func (s *Set) TenantClusters() ([]*v1alpha1.TenantCluster, error) {
	out := make([]*v1alpha1.TenantCluster, 0, s.Clusters.Len())
	err := s.Clusters.Each(func(_ int, o Object) error {
		out = append(out, o.Obj.(*v1alpha1.TenantCluster))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ProviderConfigs returns every ProviderConfig.
func (s *Set) ProviderConfigs() []*v1alpha1.ProviderConfig {
	return typed[*v1alpha1.ProviderConfig](s)
}

// Users returns every User.
func (s *Set) Users() []*v1alpha1.User { return typed[*v1alpha1.User](s) }

// IdentityProviders returns every IdentityProvider.
func (s *Set) IdentityProviders() []*v1alpha1.IdentityProvider {
	return typed[*v1alpha1.IdentityProvider](s)
}

// TenantAddons returns every TenantAddon.
func (s *Set) TenantAddons() []*v1alpha1.TenantAddon { return typed[*v1alpha1.TenantAddon](s) }

// NetworkPools returns every NetworkPool.
func (s *Set) NetworkPools() []*v1alpha1.NetworkPool { return typed[*v1alpha1.NetworkPool](s) }

// IPAllocations returns every IPAllocation.
func (s *Set) IPAllocations() []*v1alpha1.IPAllocation { return typed[*v1alpha1.IPAllocation](s) }

// TenantControlPlanes returns every TenantControlPlane.
func (s *Set) TenantControlPlanes() []*stewardv1alpha1.TenantControlPlane {
	return typed[*stewardv1alpha1.TenantControlPlane](s)
}

// Team returns the Team with that name, or nil.
func (s *Set) Team(name string) *v1alpha1.Team {
	return find[*v1alpha1.Team](s, v1alpha1.KindTeam, "", name)
}

// ProviderConfig returns the ProviderConfig with that namespace and name, or nil; an
// empty namespace means butler-system, as in a TenantCluster's providerConfigRef.
func (s *Set) ProviderConfig(namespace, name string) *v1alpha1.ProviderConfig {
	if namespace == "" {
		namespace = v1alpha1.DefaultProviderNamespace
	}
	return find[*v1alpha1.ProviderConfig](s, v1alpha1.KindProviderConfig, namespace, name)
}

// User returns the User with that name, or nil.
func (s *Set) User(name string) *v1alpha1.User {
	return find[*v1alpha1.User](s, v1alpha1.KindUser, "", name)
}

// IdentityProvider returns the IdentityProvider with that name, or nil.
func (s *Set) IdentityProvider(name string) *v1alpha1.IdentityProvider {
	return find[*v1alpha1.IdentityProvider](s, v1alpha1.KindIdentityProvider, "", name)
}
