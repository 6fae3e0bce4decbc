package crdexplain

import (
	"sort"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/editdist"
)

// closest are the values of cands (a name to what it stands for) whose name is within a
// third of its length of typo, or begins or contains what was typed: kubectl's and
// cobra's "did you mean".
func closest(typed string, cands map[string]string) []string {
	typed = strings.ToLower(typed)
	type hit struct {
		v string
		d int
	}
	best := map[string]int{}
	for n, v := range cands {
		ln := strings.ToLower(n)
		d := editdist.Levenshtein(typed, ln)
		if d > max(2, len(typed)/3) && !(len(typed) >= 3 && strings.Contains(ln, typed)) {
			continue
		}
		if old, ok := best[v]; !ok || d < old {
			best[v] = d
		}
	}
	hits := make([]hit, 0, len(best))
	for v, d := range best {
		hits = append(hits, hit{v, d})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].d != hits[j].d {
			return hits[i].d < hits[j].d
		}
		return hits[i].v < hits[j].v
	})
	var out []string
	for i := 0; i < len(hits) && i < 3; i++ {
		out = append(out, hits[i].v)
	}
	return out
}
