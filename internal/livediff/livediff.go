// Package livediff compares objects with what a live cluster holds, as kubectl diff does:
// each object is sent as a server-side apply with dryRun=All, so the server's defaults,
// mutating webhooks and validation shape the result, and the result is compared with the
// live object once the fields the server sets for itself are dropped. Live objects of the
// compared kinds, in the compared scope, that the input does not hold are drift.
package livediff

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// The changes an object can show.
const (
	// Added: the object is not live; applying it creates it.
	Added = "added"
	// Changed: applying the object changes the live one.
	Changed = "changed"
	// Drift: live, of a compared kind and scope, and not in the input: created outside the
	// manifests (from the console, by hand). Applying the manifests leaves it as it is (a
	// GitOps controller prunes only what it applied), so it is not called deleted.
	Drift = "drift"
)

// RequestTimeout bounds each request: discovery, a get, a dry run, a page of a list.
const RequestTimeout = 30 * time.Second

// pageSize is how many objects a page of a drift list holds.
const pageSize = 500

// Input is one object to compare, as the manifests hold it.
type Input struct {
	// Where names the object's file and line for errors.
	Where  string
	Object *unstructured.Unstructured
}

// Change is what applying one object would do, or a live object the input does not hold.
type Change struct {
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`
	Namespace string   `json:"namespace,omitempty"`
	Change    string   `json:"change"`
	Fields    []string `json:"fields"`
	// GVK is the object's group, version and kind, for its file name in a diff.
	GVK schema.GroupVersionKind `json:"-"`
	// Live is the live object and Merged what applying the input would make it, both
	// without the fields the server sets for itself; nil when there is none.
	Live, Merged *unstructured.Unstructured `json:"-"`
}

// Differ compares objects with one cluster.
type Differ struct {
	client       dynamic.Interface
	mapper       meta.RESTMapper
	fieldManager string
}

// New returns a Differ for cfg; the server's API groups are read once (discovery), with
// the request deadline. fieldManager is who the dry-run applies are sent as.
func New(cfg *rest.Config, fieldManager string) (*Differ, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.Timeout == 0 || cfg.Timeout > RequestTimeout {
		cfg.Timeout = RequestTimeout // discovery takes no context: its deadline is the client's
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil && len(groups) == 0 {
		return nil, fmt.Errorf("reading the server's API groups: %w", err)
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Differ{client: client, mapper: restmapper.NewDiscoveryRESTMapper(groups), fieldManager: fieldManager}, nil
}

// Compare compares each input with the live object and, with drift, lists the live
// objects of the inputs' kinds, in their scope, that no input holds: the inputs'
// namespaces for a namespaced kind, the whole cluster for a cluster-scoped one. The changes
// come sorted by kind, namespace and name; unchanged objects are left out.
func (d *Differ) Compare(ctx context.Context, inputs []Input, drift bool) ([]Change, error) {
	var changes []Change
	held := map[string]bool{}
	scopes := map[schema.GroupVersionKind]*scope{}
	for _, in := range inputs {
		c, err := d.compareOne(ctx, in, scopes)
		if err != nil {
			return nil, err
		}
		held[key(c.GVK.Kind, c.Namespace, c.Name)] = true
		if c.Change != "" {
			changes = append(changes, c)
		}
	}
	if drift {
		live, err := d.drift(ctx, scopes, held)
		if err != nil {
			return nil, err
		}
		changes = append(changes, live...)
	}
	sort.SliceStable(changes, func(i, j int) bool {
		a, b := changes[i], changes[j]
		return key(a.Kind, a.Namespace, a.Name) < key(b.Kind, b.Namespace, b.Name)
	})
	return changes, nil
}

func key(kind, ns, name string) string { return kind + "\x00" + ns + "\x00" + name }

// scope is where a kind's drift is looked for.
type scope struct {
	mapping    *meta.RESTMapping
	namespaces map[string]bool
}

func (d *Differ) compareOne(ctx context.Context, in Input, scopes map[schema.GroupVersionKind]*scope) (Change, error) {
	u := in.Object
	gvk := u.GroupVersionKind()
	c := Change{Kind: gvk.Kind, Name: u.GetName(), Namespace: u.GetNamespace(), GVK: gvk, Fields: []string{}}
	m, err := d.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return c, fmt.Errorf("%s: %s %s: the server does not serve %s: %w", in.Where, gvk.Kind, u.GetName(), gvk.GroupVersion(), err)
	}
	namespaced := m.Scope.Name() == meta.RESTScopeNameNamespace
	if !namespaced {
		c.Namespace = ""
		u.SetNamespace("")
	} else if c.Namespace == "" {
		return c, fmt.Errorf("%s: %s %s: metadata.namespace: Required value: a namespaced object names its namespace", in.Where, gvk.Kind, u.GetName())
	}
	s := scopes[gvk]
	if s == nil {
		s = &scope{mapping: m, namespaces: map[string]bool{}}
		scopes[gvk] = s
	}
	s.namespaces[c.Namespace] = true
	ri := d.resource(m, c.Namespace)

	live, err := get(ctx, ri, c.Name)
	if err != nil {
		return c, fmt.Errorf("%s: reading %s %s: %w", in.Where, gvk.Kind, describe(c), err)
	}
	merged, err := d.dryRunApply(ctx, ri, u)
	switch {
	case err != nil && live == nil && apierrors.IsNotFound(err):
		// Its namespace does not exist yet (the manifests may create it): shown as written.
		merged = u.DeepCopy()
	case err != nil:
		return c, fmt.Errorf("%s: %s %s: the server's dry run: %w", in.Where, gvk.Kind, describe(c), err)
	}
	c.Merged = Normalize(merged)
	if live == nil {
		c.Change = Added
		return c, nil
	}
	c.Live = Normalize(live)
	c.Fields = Fields(c.Live.Object, c.Merged.Object)
	if len(c.Fields) > 0 {
		c.Change = Changed
	}
	return c, nil
}

func describe(c Change) string {
	if c.Namespace == "" {
		return c.Name
	}
	return c.Namespace + "/" + c.Name
}

func (d *Differ) resource(m *meta.RESTMapping, namespace string) dynamic.ResourceInterface {
	ri := d.client.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return ri.Namespace(namespace)
	}
	return ri
}

// get reads the live object; nil when there is none.
func get(ctx context.Context, ri dynamic.ResourceInterface, name string) (*unstructured.Unstructured, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	live, err := ri.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return live, err
}

// dryRunApply sends u as a server-side apply with dryRun=All, forcing conflicts as a GitOps
// controller does: the server stores nothing and returns what the apply would make.
func (d *Differ) dryRunApply(ctx context.Context, ri dynamic.ResourceInterface, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	body, err := json.Marshal(u.Object)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	force := true
	return ri.Patch(ctx, u.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{
		DryRun: []string{metav1.DryRunAll}, FieldManager: d.fieldManager, Force: &force})
}

// drift lists, kind by kind, the live objects in scope that held does not name.
func (d *Differ) drift(ctx context.Context, scopes map[schema.GroupVersionKind]*scope, held map[string]bool) ([]Change, error) {
	var out []Change
	for gvk, s := range scopes {
		namespaces := []string{""}
		if s.mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			namespaces = sortedKeys(s.namespaces)
		}
		for _, ns := range namespaces {
			items, err := d.list(ctx, d.resource(s.mapping, ns))
			if err != nil {
				return nil, fmt.Errorf("listing %s: %w", s.mapping.Resource.GroupResource(), err)
			}
			for i := range items {
				it := &items[i]
				if held[key(gvk.Kind, it.GetNamespace(), it.GetName())] {
					continue
				}
				out = append(out, Change{Kind: gvk.Kind, Name: it.GetName(), Namespace: it.GetNamespace(), GVK: gvk,
					Change: Drift, Fields: []string{}, Live: Normalize(it)})
			}
		}
	}
	return out, nil
}

// list reads every object of ri, a page at a time, each page with its deadline.
func (d *Differ) list(ctx context.Context, ri dynamic.ResourceInterface) ([]unstructured.Unstructured, error) {
	var out []unstructured.Unstructured
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		page, err := func() (*unstructured.UnstructuredList, error) {
			ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
			defer cancel()
			return ri.List(ctx, opts)
		}()
		if err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			return out, nil
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Normalize is u without what the server sets for itself, which a change to the
// manifests can neither cause nor avoid: kubectl diff's managed fields, and the
// resourceVersion, uid, generation, creation time and status an apply also moves.
func Normalize(u *unstructured.Unstructured) *unstructured.Unstructured {
	u = u.DeepCopy()
	for _, f := range []string{"managedFields", "resourceVersion", "uid", "generation", "creationTimestamp", "selfLink"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(u.Object, "status")
	return u
}

// Fields lists the paths of the leaves that differ between a and b, sorted: a map's keys
// joined with dots (a key with a dot in brackets), a list whole (its path once, as kubectl's diff shows a list changed).
func Fields(a, b map[string]any) []string {
	out := []string{}
	fields("", a, b, &out)
	sort.Strings(out)
	return out
}

func fields(prefix string, a, b any, out *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		if !reflect.DeepEqual(a, b) {
			*out = append(*out, prefix)
		}
		return
	}
	seen := map[string]bool{}
	for k, av := range am {
		seen[k] = true
		fields(join(prefix, k), av, bm[k], out)
	}
	for k, bv := range bm {
		if !seen[k] {
			fields(join(prefix, k), nil, bv, out)
		}
	}
}

// join names a key as field paths do (metadata.labels[team.example.com/x]): in brackets
// when it holds a dot or a slash, so the path reads back unambiguously.
func join(prefix, k string) string {
	switch {
	case strings.ContainsAny(k, "./[]"):
		return prefix + "[" + k + "]"
	case prefix == "":
		return k
	}
	return prefix + "." + k
}
