package manifest

import (
	"fmt"
	"sort"
	"strings"

	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/pkg/editdist"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"
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
	gv, err := k8sschema.ParseGroupVersion(apiVersion)
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
	for _, ki := range schema.Kinds() {
		if ki.GVK().Group == group {
			names = append(names, ki.GVK().Kind)
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
	gv, _ := k8sschema.ParseGroupVersion(o.APIVersion)
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
	return schema.Suggest(kind, kinds)
}

// knownKinds are the kinds decoded into Go types (schema.Kinds), by GroupVersionKind, with
// what a Set's identity of an object needs of them.
var knownKinds = func() map[k8sschema.GroupVersionKind]kindScope {
	m := map[k8sschema.GroupVersionKind]kindScope{}
	for _, ki := range schema.Kinds() {
		m[ki.GVK()] = kindScope{namespaced: ki.Namespaced()}
	}
	return m
}()

// kindScope says whether objects of a known kind live in a namespace.
type kindScope struct{ namespaced bool }

// Namespaced reports whether a kind the toolkit reads lives in a namespace, as its CRD
// declares; known is false for every other kind, whose scope only a cluster can say.
func Namespaced(apiVersion, kind string) (namespaced, known bool) {
	ki, err := schema.KindFor(apiVersion, kind)
	if err != nil || ki == nil {
		return false, false
	}
	return ki.Namespaced(), true
}
