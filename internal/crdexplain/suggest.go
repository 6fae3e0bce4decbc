package crdexplain

import (
	"sort"
	"strings"
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
		d := distance(typed, ln)
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

// distance is the Levenshtein distance of a and b, in bytes (names are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
