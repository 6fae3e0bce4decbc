package diff

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/livediff"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// notObjects counts the YAML documents that are not Kubernetes objects (a tool's
// configuration) among what was not compared.
const notObjects = "YAML not Kubernetes objects"

// section is what is compared against the live platform at once: -f's files, or one
// target of a tree ("" when the tree has no entry points).
type section struct {
	target  string
	inputs  []livediff.Input
	changes []livediff.Change
}

// load reads -f's files as written, or --manifests' tree as its controllers render it,
// into sections, and says on stderr how many objects of other groups are not compared.
func (o *Options) load() ([]section, error) {
	mo := manifest.Options{Exclude: o.Exclude}
	if len(o.Files) > 0 {
		set, err := manifest.LoadWith(o.Files, o.IO.In, mo)
		if err != nil {
			return nil, storeerr.BadInput(err)
		}
		s, skipped, err := o.inputs("", set)
		if err != nil {
			return nil, err
		}
		if n := len(set.NotObjects); n > 0 {
			skipped[notObjects] = n
		}
		o.notCompared(skipped)
		return []section{s}, nil
	}
	tree, err := gitops.Load(o.Manifests, o.IO.In, gitops.Options{Manifest: mo})
	if err != nil {
		return nil, storeerr.BadInput(err)
	}
	var out []section
	var names []string
	for _, t := range tree.Targets {
		names = append(names, t.Name)
		if o.Target != "" && t.Name != o.Target {
			continue
		}
		s, _, err := o.inputs(t.Name, t.Set)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if o.Target != "" && len(out) == 0 {
		return nil, cmdutil.UsageError("--target %s: the tree has no such target (it has: %s)", inert.Line(o.Target), inert.Line(strings.Join(names, ", ")))
	}
	// What the tree holds of other groups, counted once as the loader read it (a target's
	// set holds some of them again).
	skipped := maps.Clone(tree.Recognised)
	for _, u := range tree.Unknown {
		skipped[u.Kind+" ("+u.APIVersion+")"]++
	}
	if n := len(tree.NotObjects); n > 0 {
		skipped[notObjects] = n
	}
	o.notCompared(skipped)
	return out, nil
}

// inputs are set's objects of Butler's groups, ready to send; skipped counts the others
// by kind.
func (o *Options) inputs(target string, set *manifest.Set) (section, map[string]int, error) {
	s := section{target: target}
	skipped := map[string]int{}
	// Its clusters whole, in the order read (read again when the load kept records).
	var convErr error
	err := set.Walk(func(obj *manifest.Object) error {
		gv, _ := schema.ParseGroupVersion(obj.APIVersion)
		if gv.Group != manifest.ButlerGroup && gv.Group != manifest.StewardGroup {
			skipped[obj.Kind]++
			return nil
		}
		u, err := toUnstructured(*obj)
		if err != nil {
			convErr = fmt.Errorf("%s: %s %s: %w", obj.Source, obj.Kind, inert.Line(obj.Name), err)
			return convErr
		}
		if u.GetNamespace() == "" && o.Namespace != "" {
			u.SetNamespace(o.Namespace)
		}
		s.inputs = append(s.inputs, livediff.Input{Where: obj.Source.String(), Object: u})
		return nil
	})
	if err != nil && err != convErr {
		err = storeerr.BadInput(err) // a cluster that cannot be read again
	}
	if err != nil {
		return s, nil, err
	}
	return s, skipped, nil
}

// toUnstructured is obj as the server is sent it: typed objects converted, with their
// apiVersion and kind, without a creation time or status the manifests do not set.
func toUnstructured(obj manifest.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.Obj.(*unstructured.Unstructured); ok {
		return u.DeepCopy(), nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj.Obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(obj.APIVersion)
	u.SetKind(obj.Kind)
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	return u, nil
}

// notCompared says on stderr which objects were read and not compared, by kind.
func (o *Options) notCompared(skipped map[string]int) {
	if len(skipped) == 0 {
		return
	}
	kinds := make([]string, 0, len(skipped))
	total := 0
	for k, n := range skipped {
		kinds = append(kinds, fmt.Sprintf("%s %d", inert.Line(k), n))
		total += n
	}
	sort.Strings(kinds)
	fmt.Fprintf(o.IO.ErrOut, "Warning: %d documents not compared (diff compares Butler's kinds): %s\n", total, strings.Join(kinds, ", "))
}
