package gitops

import (
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// touched reports whether a transformer of a build may have changed an object (ids, its
// previous ids and its current one): kustomize lists a patch transformer on every object
// it ran over, so a patch counts only when it may select the object, as kustomize selects.
// Patches that could not all be read count always.
func (l *loader) touched(trans resource.Transformations, tmp string, ov overlay, e *manifest.Object, ids []resid.ResId) bool {
	for _, tr := range trans {
		switch tr.ConfiguredBy.Kind {
		case "PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer":
		default:
			return true
		}
		ps, all := l.patchesOf(tr, tmp, ov, e)
		if !all {
			return true
		}
		for _, p := range ps {
			if p.applies(ids) {
				return true
			}
		}
	}
	return false
}

// patchesOf are the patches of the kustomization a transformation was configured in; all
// is false when some of them could not be read (or the kustomization is not known).
func (l *loader) patchesOf(tr *resource.Origin, tmp string, ov overlay, e *manifest.Object) (ps []patch, all bool) {
	in := filepath.Clean(filepath.Join(tmp, tr.ConfiguredIn))
	if filepath.Dir(in) == tmp {
		if e == nil {
			return nil, len(ov.patches) == 0
		}
		all = true
		for i, p := range ov.patches {
			got := patchesOf(e.Source.File, p.Patch, ov.patchLines[i], p.Target)
			all = all && len(got) > 0
			ps = append(ps, got...)
		}
		return ps, all
	}
	if k, ok := l.kusts[filepath.Dir(in)]; ok {
		return k.patches, k.allRead
	}
	return nil, false
}

// patchOrigins points the fields the patches of a build set at the patches' lines.
func (l *loader) patchOrigins(o *manifest.Object, trans resource.Transformations, tmp string, ov overlay, e *manifest.Object, ids []resid.ResId) {
	for _, tr := range trans {
		switch tr.ConfiguredBy.Kind {
		case "PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer":
		default:
			continue
		}
		ps, _ := l.patchesOf(tr, tmp, ov, e)
		for _, p := range ps {
			if !p.applies(ids) {
				continue
			}
			for _, f := range p.fields {
				f.File = l.rel(l.abs(f.File))
				o.AddOrigin(f)
			}
		}
	}
}

// lineOf is the first line of text holding s, or 0.
func lineOf(text, s string) int {
	for i, line := range strings.Split(text, "\n") {
		if strings.Contains(line, s) {
			return i + 1
		}
	}
	return 0
}
