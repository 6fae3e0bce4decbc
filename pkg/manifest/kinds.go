package manifest

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/editdist"
)

// The API groups whose every document the toolkit accounts for.
const (
	ButlerGroup  = "butler.butlerlabs.dev"
	StewardGroup = "steward.butlerlabs.dev"
)

// looseKinds are the other kinds of the Butler and Steward APIs: real objects a GitOps tree
// may hold, which the tools neither check nor use, so they are kept as they are. Any other
// kind in those groups is a mistake (docs/ci-on-manifests.md).
var looseKinds = map[string][]string{
	ButlerGroup: {"AddonDefinition", "ButlerConfig", "ClusterBootstrap", "ClusterCreationPolicy",
		"ImageSync", "LoadBalancerRequest", "MachineRequest", "ManagementAddon",
		"Workspace", "WorkspaceTemplate"},
	StewardGroup: {"DataStore", "KubeconfigGenerator"},
}

func looseKind(apiVersion, kind string) bool {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return false
	}
	for _, k := range looseKinds[gv.Group] {
		if k == kind {
			return true
		}
	}
	return false
}

// groupKinds lists every kind of a group the toolkit knows, sorted.
func groupKinds(group string) []string {
	names := append([]string{}, looseKinds[group]...)
	for gvk := range knownKinds {
		if gvk.Group == group {
			names = append(names, gvk.Kind)
		}
	}
	sort.Strings(names)
	return names
}

// ourGroup names the Butler or Steward group that group is, or looks like a misspelling of.
func ourGroup(group string) (string, bool) {
	for _, g := range []string{ButlerGroup, StewardGroup} {
		if group == g {
			return g, true
		}
	}
	for _, g := range []string{ButlerGroup, StewardGroup} {
		first, _, _ := strings.Cut(g, ".")
		if editdist.Levenshtein(strings.ToLower(group), g) <= 3 || strings.HasPrefix(strings.ToLower(group), first+".butlerlabs") {
			return g, false
		}
	}
	return "", false
}

// unknownKind decides about a document of a kind the toolkit does not decode: nil keeps
// it (loosely, unchecked); an error refuses it. A kind of the Butler or Steward group must
// be one they define, exactly spelled; a group that looks like theirs is a mistake; other
// groups are kept, unless Options.Strict asks for them to be listed as errors.
func (d *decoder) unknownKind(o *Object) *DecodeError {
	gv, _ := schema.ParseGroupVersion(o.APIVersion)
	group, exact := ourGroup(gv.Group)
	switch {
	case exact && looseKind(o.APIVersion, o.Kind):
		return nil
	case exact:
		kinds := groupKinds(group)
		if hint := suggestKind(o.Kind, kinds); hint != "" {
			return o.errorAt("kind", 0, "unknown kind %q in group %s%s", o.Kind, group, hint)
		}
		return o.errorAt("kind", 0, "unknown kind %q in group %s; its kinds are %s", o.Kind, group, strings.Join(kinds, ", "))
	case group != "":
		return o.errorAt("apiVersion", 0, "unknown API group %q (did you mean %q?)", gv.Group, group+"/"+gv.Version)
	case gv.Group == "" && suggestKind(o.Kind, groupKinds(ButlerGroup)) != "":
		// A Butler kind under a core-looking apiVersion ("v1alpha1") would be skipped.
		return o.errorAt("apiVersion", 0, "%q names no API group, so this %s is not Butler's (did you mean %q?)", o.APIVersion, o.Kind, ButlerGroup+"/v1alpha1")
	case d.opts.Strict:
		e := o.errorAt("kind", 0, "%s %s is not a Butler or Steward kind: the tools do not check it", o.APIVersion, o.Kind)
		e.Strict = true
		return e
	}
	return nil
}

// suggestKind returns ` (did you mean "TenantCluster"?)` for a near miss of a kind: another
// case, a plural, or a typo of at most two letters.
func suggestKind(kind string, kinds []string) string {
	low := strings.ToLower(kind)
	for _, k := range kinds {
		lk := strings.ToLower(k)
		if low == lk || low == lk+"s" || low == lk+"es" || low == strings.TrimSuffix(lk, "y")+"ies" {
			return fmt.Sprintf(" (did you mean %q?)", k)
		}
	}
	return suggest(kind, kinds)
}

// kindInfo describes a kind the toolkit decodes into a Go type.
type kindInfo struct {
	gvk        schema.GroupVersionKind
	typ        reflect.Type // the struct type
	strict     bool         // refuse unknown fields
	namespaced bool
	crd        string                     // file name of its CRD in config/crd
	typeMeta   []int                      // index of its metav1.TypeMeta (nil: none)
	schema     atomic.Pointer[jsonSchema] // schemaFor's, once read
}

var typeMetaType = reflect.TypeOf(metav1.TypeMeta{})

// setType sets the apiVersion and kind of obj, a new object of kind ki, as read: what
// meta.TypeAccessor sets, written in place. apiVersion is one kindFor found ki by, so
// it is already in the form the accessor would write.
func (ki *kindInfo) setType(obj runtime.Object, apiVersion, kind string) {
	if ki.typeMeta == nil {
		if ta, err := meta.TypeAccessor(obj); err == nil {
			ta.SetAPIVersion(apiVersion)
			ta.SetKind(kind)
		}
		return
	}
	tm := reflect.ValueOf(obj).Elem().FieldByIndex(ki.typeMeta).Addr().Interface().(*metav1.TypeMeta)
	tm.APIVersion, tm.Kind = apiVersion, kind
}

var knownKinds = func() map[schema.GroupVersionKind]*kindInfo {
	m := map[schema.GroupVersionKind]*kindInfo{}
	add := func(obj runtime.Object, gv schema.GroupVersion, kind string, strict, namespaced bool, plural string) {
		gvk := gv.WithKind(kind)
		ki := &kindInfo{gvk: gvk, typ: reflect.TypeOf(obj).Elem(), strict: strict, namespaced: namespaced,
			crd: gv.Group + "_" + plural + ".yaml"}
		if f, ok := ki.typ.FieldByName("TypeMeta"); ok && f.Type == typeMetaType && f.Anonymous {
			ki.typeMeta = f.Index
		}
		m[gvk] = ki
	}
	b := v1alpha1.GroupVersion
	add(&v1alpha1.Team{}, b, v1alpha1.KindTeam, true, false, "teams")
	add(&v1alpha1.TenantCluster{}, b, v1alpha1.KindTenantCluster, true, true, "tenantclusters")
	add(&v1alpha1.ProviderConfig{}, b, v1alpha1.KindProviderConfig, true, true, "providerconfigs")
	add(&v1alpha1.User{}, b, v1alpha1.KindUser, true, false, "users")
	add(&v1alpha1.IdentityProvider{}, b, v1alpha1.KindIdentityProvider, true, false, "identityproviders")
	add(&v1alpha1.TenantAddon{}, b, v1alpha1.KindTenantAddon, true, true, "tenantaddons")
	add(&v1alpha1.ClusterCreationPolicy{}, b, v1alpha1.KindClusterCreationPolicy, true, false, "clustercreationpolicies")
	add(&v1alpha1.NetworkPool{}, b, v1alpha1.KindNetworkPool, true, true, "networkpools")
	add(&v1alpha1.IPAllocation{}, b, v1alpha1.KindIPAllocation, true, true, "ipallocations")
	// Only part of TenantControlPlane is typed and its CRD keeps unknown fields, so unknown
	// fields are allowed (and kept on write); types are still checked.
	add(&stewardv1alpha1.TenantControlPlane{}, stewardv1alpha1.GroupVersion, "TenantControlPlane", false, true, "tenantcontrolplanes")
	return m
}()

// kindFor returns the known kind of an apiVersion/kind pair, nil for other kinds, or an
// error for a known kind under a version of its group that the toolkit does not read.
func kindFor(apiVersion, kind string) (*kindInfo, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("invalid apiVersion %q", apiVersion)
	}
	if ki, ok := knownKinds[gv.WithKind(kind)]; ok {
		return ki, nil
	}
	for gvk := range knownKinds {
		if gvk.Group == gv.Group && gvk.Kind == kind {
			return nil, fmt.Errorf("unsupported apiVersion %q for %s: the toolkit reads %s", apiVersion, kind, gvk.GroupVersion())
		}
	}
	return nil, nil
}

// newTyped returns a new typed object of a known kind.
func (ki *kindInfo) newTyped() runtime.Object {
	return reflect.New(ki.typ).Interface().(runtime.Object)
}

// Namespaced reports whether a kind the toolkit reads lives in a namespace, as its CRD
// declares; known is false for every other kind, whose scope only a cluster can say.
func Namespaced(apiVersion, kind string) (namespaced, known bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return false, false
	}
	if ki, ok := knownKinds[gv.WithKind(kind)]; ok {
		return ki.namespaced, true
	}
	return false, false
}
