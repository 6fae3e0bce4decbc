// Package applyutil is what `apply -f` and `cluster create -f` share: reading the objects
// of -f (strictly, with file and line), the preflight that judges each one as a create or
// an update with the server's rules, and sending them through the store.
package applyutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Object is one object read from -f, with where it was written: a TenantCluster
// (butlerctl's) in Cluster, or one of butleradm's kinds in Operator, with its document
// (Doc) for the lines of its fields.
type Object struct {
	Cluster  *v1alpha1.TenantCluster
	Operator store.Object
	Doc      manifest.Object
	Source   manifest.Source
}

// Where is the object's file and line, for messages.
func (o Object) Where() string { return o.Source.String() }

// ResourceName is kind.group/name, as kubectl's -o name prints it.
func ResourceName(name string) string { return "tenantcluster.butler.butlerlabs.dev/" + name }

// Binary says which kinds a binary's apply takes and where the others go.
type Binary struct {
	Name string
	// Takes reports whether the binary applies objects of kind.
	Takes func(kind string) bool
	// Other is the binary that applies the kinds this one does not.
	Other string
	// What names the kinds it applies, for a refusal of another.
	What string
}

// operatorKinds are the kinds only platform operators write: butleradm's.
var operatorKinds = map[string]bool{
	v1alpha1.KindTeam: true, v1alpha1.KindProviderConfig: true, v1alpha1.KindUser: true,
	v1alpha1.KindIdentityProvider: true, v1alpha1.KindClusterCreationPolicy: true,
	v1alpha1.KindNetworkPool: true, v1alpha1.KindIPAllocation: true,
}

// Developer is butlerctl's apply: TenantClusters.
var Developer = Binary{Name: "butlerctl", Other: "butleradm", What: "TenantClusters",
	Takes: func(k string) bool { return k == v1alpha1.KindTenantCluster }}

// Operator is butleradm's apply: the kinds its team, policy and provider commands create
// and change. Users, IdentityProviders and network objects have no such command to judge
// them as, so they are refused rather than applied unjudged.
var Operator = Binary{Name: "butleradm", Other: "butlerctl", What: "Teams, ClusterCreationPolicies and ProviderConfigs",
	Takes: func(k string) bool { r, _ := store.ApplyResource(k); return r != "" }}

// ReadOptions are the flags that choose what is read.
type ReadOptions struct {
	Files     []string // -f: files, directories, "-"
	Recursive bool     // -R
	Selector  string   // -l
	Namespace string   // -n
}

// Read reads the objects of o.Files, strictly: an unknown field, a wrong type or an invalid
// value is an error naming the file, line, object and field (exit 2), and so is YAML that
// is no Kubernetes object and a kind b does not apply. A directory gives its manifest
// files (.yaml, .yml, .json), and with -R those of its subdirectories. -l keeps the objects
// whose labels match. Nothing of what is read is skipped silently.
func Read(o ReadOptions, b Binary, stdin io.Reader) ([]Object, error) {
	sel, err := labels.Parse(o.Selector)
	if err != nil {
		return nil, cmdutil.UsageError("-l %q: %v", o.Selector, err)
	}
	paths, err := expand(o.Files, o.Recursive)
	if err != nil {
		return nil, err
	}
	set, err := manifest.LoadWith(paths, stdin, manifest.Options{Strict: true})
	if err != nil {
		return nil, storeerr.BadInput(err)
	}
	var errs []error
	for _, src := range set.NotObjects {
		errs = append(errs, fmt.Errorf("%s: not a Kubernetes object (no apiVersion, kind or metadata): apply takes Butler objects only", src))
	}
	var out []Object
	// Its clusters with the rest, whole, in the order read.
	err = set.Walk(func(p *manifest.Object) error {
		obj := *p
		if !b.Takes(obj.Kind) {
			errs = append(errs, kindError(obj, b))
			return nil
		}
		if c, ok := obj.Obj.(*v1alpha1.TenantCluster); ok {
			c = c.DeepCopy()
			if !sel.Matches(labels.Set(c.Labels)) {
				return nil
			}
			if err := namespace(&c.ObjectMeta, "tenantcluster", o.Namespace, obj.Source); err != nil {
				errs = append(errs, err)
				return nil
			}
			out = append(out, Object{Cluster: c, Doc: obj, Source: obj.Source})
			return nil
		}
		op := operatorObject(obj.Obj)
		if op == nil {
			errs = append(errs, kindError(obj, b))
			return nil
		}
		if !sel.Matches(labels.Set(op.GetLabels())) {
			return nil
		}
		if pc, ok := op.(*v1alpha1.ProviderConfig); ok { // the one namespaced kind of butleradm's
			if err := namespace(&pc.ObjectMeta, "providerconfig", o.Namespace, obj.Source); err != nil {
				errs = append(errs, err)
				return nil
			}
		}
		out = append(out, Object{Operator: op, Doc: obj, Source: obj.Source})
		return nil
	})
	if err != nil {
		errs = append(errs, err) // a cluster that cannot be read again
	}
	if len(errs) > 0 {
		return nil, storeerr.BadInput(errors.Join(errs...))
	}
	return out, nil
}

// kindError refuses an object the binary does not apply, pointing at the one that does.
func kindError(obj manifest.Object, b Binary) error {
	what := fmt.Sprintf("%s: %s %s", obj.Source, obj.Kind, inert.Text(obj.Name))
	switch {
	case operatorKinds[obj.Kind] && b.Name == "butlerctl":
		if Operator.Takes(obj.Kind) {
			return fmt.Errorf("%s: a %s is a platform operator's object: apply it with butleradm apply", what, obj.Kind)
		}
		return fmt.Errorf("%s: a %s is a platform operator's object: butlerctl apply takes TenantClusters", what, obj.Kind)
	case obj.Kind == v1alpha1.KindTenantCluster:
		return fmt.Errorf("%s: a %s is a developer's object: apply it with butlerctl apply", what, obj.Kind)
	}
	return fmt.Errorf("%s: %s apply does not apply %s objects (it applies %s)", what, b.Name, obj.Kind, b.What)
}

// namespace checks -n against the object's namespace, as kubectl does: an object that
// names another namespace than -n is refused rather than moved.
func namespace(c *metav1.ObjectMeta, kind, flag string, src manifest.Source) error {
	switch {
	case flag == "" || c.Namespace == flag:
	case c.Namespace == "":
		c.Namespace = flag
	default:
		return fmt.Errorf("%s: %s %s: metadata.namespace %q does not match --namespace %q: pass --namespace=%s or leave it out",
			src, kind, inert.Text(c.Name), inert.Text(c.Namespace), flag, inert.Text(c.Namespace))
	}
	return nil
}

// expand turns -f into the paths to load: a directory without -R is its own manifest
// files only, as kubectl reads it.
func expand(files []string, recursive bool) ([]string, error) {
	var out []string
	for _, f := range files {
		if f == "-" || recursive {
			out = append(out, f)
			continue
		}
		fi, err := os.Stat(f)
		if err != nil {
			return nil, storeerr.BadInput(fmt.Errorf("-f %s: %w", f, err))
		}
		if !fi.IsDir() {
			out = append(out, f)
			continue
		}
		entries, err := os.ReadDir(f)
		if err != nil {
			return nil, storeerr.BadInput(fmt.Errorf("-f %s: %w", f, err))
		}
		var names []string
		for _, e := range entries {
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".yaml", ".yml", ".json":
				if !e.IsDir() {
					names = append(names, filepath.Join(f, e.Name()))
				}
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, storeerr.BadInput(fmt.Errorf("-f %s: no .yaml, .yml or .json files in the directory (pass -R for its subdirectories)", f))
		}
		out = append(out, names...)
	}
	return out, nil
}

// operatorObject is a copy of one of butleradm's kinds, nil for another.
func operatorObject(o runtime.Object) store.Object {
	switch t := o.(type) {
	case *v1alpha1.Team:
		return t.DeepCopy()
	case *v1alpha1.ClusterCreationPolicy:
		return t.DeepCopy()
	case *v1alpha1.ProviderConfig:
		return t.DeepCopy()
	}
	return nil
}
