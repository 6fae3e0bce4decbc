package gitops

import (
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// touched reports whether a transformer of a build changed an object: kustomize lists a
// patch transformer on every object it ran over, so a patch counts only when it targets
// the object (one selecting by labels or annotations counts always).
func (l *loader) touched(trans resource.Transformations, tmp string, ov overlay, e *manifest.Object, kind string, names ...string) bool {
	for _, tr := range trans {
		switch tr.ConfiguredBy.Kind {
		case "PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer":
		default:
			return true
		}
		for _, p := range l.patchesOf(tr, tmp, ov, e) {
			if p.applies(kind, names...) || (p.target != nil && (p.target.LabelSelector != "" || p.target.AnnotationSelector != "")) {
				return true
			}
		}
	}
	return false
}

// patchesOf are the patches of the kustomization a transformation was configured in.
func (l *loader) patchesOf(tr *resource.Origin, tmp string, ov overlay, e *manifest.Object) []patch {
	in := filepath.Clean(filepath.Join(tmp, tr.ConfiguredIn))
	if filepath.Dir(in) == tmp {
		if e == nil {
			return nil
		}
		var ps []patch
		for i, p := range ov.patches {
			ps = append(ps, patchesOf(e.Source.File, p.Patch, ov.patchLines[i], p.Target)...)
		}
		return ps
	}
	if k, ok := l.kusts[filepath.Dir(in)]; ok {
		return k.patches
	}
	return nil
}

// patchOrigins points the fields the patches of a build set at the patches' lines.
func (l *loader) patchOrigins(o *manifest.Object, trans resource.Transformations, tmp string, ov overlay, e *manifest.Object, origName string) {
	for _, tr := range trans {
		switch tr.ConfiguredBy.Kind {
		case "PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer":
		default:
			continue
		}
		for _, p := range l.patchesOf(tr, tmp, ov, e) {
			if !p.applies(o.Kind, origName, o.Name) {
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
