package gitops

import (
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// idKey is an object's id as kustomize compares ids (group, version, kind, name, and the
// namespace, "" and "default" being one).
func idKey(apiVersion, kind, namespace, name string) string {
	g, v := resid.ParseGroupVersion(apiVersion)
	id := resid.NewResIdWithNamespace(resid.NewGvk(g, v, kind), name, namespace)
	return g + "/" + v + "/" + kind + "\x00" + id.EffectiveNamespace() + "\x00" + name
}

// selection is which objects the build's patches may select: a superset of what
// kustomize selects (namespaces are not looked at), never less.
type selection struct {
	all   bool
	rules []selectRule
}

type selectRule struct {
	re         *types.SelectorRegex // a target; else kind and name of the patch itself
	kind, name string
}

// newSelection reads the patches' targets; false when one selects by labels or
// annotations, which only kustomize evaluates (and which marks every object touched).
func newSelection(ps []patch) (*selection, bool) {
	s := &selection{}
	for _, p := range ps {
		if p.target != nil {
			if p.target.LabelSelector != "" || p.target.AnnotationSelector != "" {
				return nil, false
			}
			re, err := types.NewSelectorRegex(p.target)
			if err != nil {
				return nil, false
			}
			s.rules = append(s.rules, selectRule{re: re})
			continue
		}
		if p.kind == "" && p.name == "" {
			s.all = true // a patch without target or id: kustomize decides
		}
		s.rules = append(s.rules, selectRule{kind: p.kind, name: p.name})
	}
	return s, true
}

func (s *selection) may(o *manifest.Object) bool {
	if s.all {
		return true
	}
	for _, r := range s.rules {
		if r.re != nil {
			g, v := resid.ParseGroupVersion(o.APIVersion)
			if r.re.MatchGvk(resid.NewGvk(g, v, o.Kind)) && r.re.MatchName(o.Name) {
				return true
			}
			continue
		}
		if (r.kind == "" || r.kind == o.Kind) && (r.name == "" || r.name == o.Name) {
			return true
		}
	}
	return false
}
