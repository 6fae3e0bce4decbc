package gitops

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"strconv"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// multiSource renders an Argo CD Application of several sources (spec.sources), and
// reports whether it had them: each source with a path of this repository renders as a
// single source would, into the one output; a source that only names a ref (for another
// source's value files) renders nothing; one of a Helm chart is counted as not rendered.
func (l *loader) multiSource(e *manifest.Object, u map[string]any, t *Tree, out *output) bool {
	srcs, ok, _ := unstructured.NestedSlice(u, "spec", "sources")
	if !ok || len(srcs) == 0 {
		return false
	}
	if _, single, _ := unstructured.NestedMap(u, "spec", "source"); single {
		return false // Argo CD reads spec.source then, and ignores spec.sources
	}
	refs := map[string]map[string]any{} // the sources that lend their files to valueFiles
	for _, s := range srcs {
		if src, _ := s.(map[string]any); src != nil {
			if ref, _ := src["ref"].(string); ref != "" {
				refs[ref] = src
			}
		}
	}
	for i, s := range srcs {
		src, _ := s.(map[string]any)
		if src == nil {
			continue
		}
		ref, _ := src["ref"].(string)
		p, _ := src["path"].(string)
		chart, _ := src["chart"].(string)
		if ref != "" && p == "" && chart == "" {
			continue // a ref only: the values of another source, no objects of its own
		}
		if dir, ok := l.resolveDir(p); ok && p != "" && chart == "" && l.charts[dir] {
			// A chart of this repository: its valueFiles may name the other sources' refs.
			l.argoChartSource(e, u, src, "spec.sources["+strconv.Itoa(i)+"]", dir, refs, out, t)
			continue
		}
		one := unstructured.Unstructured{Object: u}
		c := one.DeepCopy()
		unstructured.RemoveNestedField(c.Object, "spec", "sources")
		_ = unstructured.SetNestedField(c.Object, src, "spec", "source")
		single := *e
		single.Obj = c
		r := l.renderEntry(&single, t)
		out.objects = append(out.objects, r.objects...)
		for f := range r.files {
			out.files[f] = true
		}
		out.nested = append(out.nested, r.nested...)
		out.errs = append(out.errs, r.errs...)
	}
	return true
}
