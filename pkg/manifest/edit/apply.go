package edit

import (
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// commentSet is the set of comment lines in lines first..last.
func (e *docEditor) commentSet(first, last int) map[string]bool {
	set := map[string]bool{}
	for l := first; l <= last; l++ {
		if t := strings.TrimSpace(e.lineText(l)); strings.HasPrefix(t, "#") {
			set[t] = true
		}
	}
	return set
}

// renderRegion re-renders a target from the merged tree.
func (e *docEditor) renderRegion(r *target) textEdit {
	em := &emitter{st: e.st, allowed: e.commentSet(r.first, r.last)}
	if r.item {
		hc := r.node.HeadComment
		r.node.HeadComment = ""
		em.seqBody(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{r.node}}, r.col)
		r.node.HeadComment = hc
	} else {
		hc := r.node.HeadComment
		r.node.HeadComment = ""
		em.mappingBody(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{r.node, valueOf(r.parent, r.node)}}, r.col)
		r.node.HeadComment = hc
	}
	text := em.b.String()
	end := e.lineEnd(r.last)
	if end == len(e.text) && !strings.HasSuffix(e.text, "\n") {
		text = strings.TrimSuffix(text, "\n")
	}
	return textEdit{start: e.lineStart(r.first), end: end, text: e.nl(text)}
}

// apply builds the new text from the edits; ok is false when they collide.
func (e *docEditor) apply() (string, bool) {
	edits := append([]textEdit(nil), e.edits...)
	var regions []textEdit
	for _, r := range e.regions {
		regions = append(regions, e.renderRegion(r))
	}
	// Keep only outermost regions, and drop edits inside them.
	sort.SliceStable(regions, func(i, j int) bool {
		if regions[i].start != regions[j].start {
			return regions[i].start < regions[j].start
		}
		return regions[i].end > regions[j].end
	})
	var outer []textEdit
	for _, r := range regions {
		if len(outer) > 0 && r.start < outer[len(outer)-1].end {
			continue
		}
		outer = append(outer, r)
	}
	var kept []textEdit
	for _, ed := range edits {
		inside := false
		for _, r := range outer {
			in := ed.start >= r.start && ed.end <= r.end
			if ed.start == ed.end {
				in = ed.start > r.start && ed.start < r.end // an insertion at an edge is outside
			}
			if in {
				inside = true
				break
			}
		}
		if !inside {
			kept = append(kept, ed)
		}
	}
	all := append(kept, outer...)
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].start != all[j].start {
			return all[i].start < all[j].start
		}
		return all[i].start == all[i].end && all[j].start != all[j].end
	})
	var b strings.Builder
	cur := 0
	for _, ed := range all {
		if ed.start < cur {
			return "", false
		}
		b.WriteString(e.text[cur:ed.start])
		b.WriteString(ed.text)
		cur = ed.end
	}
	b.WriteString(e.text[cur:])
	return b.String(), true
}
