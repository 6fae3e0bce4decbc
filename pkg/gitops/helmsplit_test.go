package gitops

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/releaseutil"
)

// helmSplit is Helm's own split, in its order.
func helmSplit(text string) []string {
	m := releaseutil.SplitManifests(text)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out
}

// splitManifests splits as Helm's releaseutil.SplitManifests does, on the cases its
// regular expression makes subtle (a separator with text after it, blanks that are no
// RE2 \s, a separator at the start or the end) and on 20,000 generated texts.
func TestSplitManifestsAsHelm(t *testing.T) {
	cases := []string{
		"", "---", "---\n---", "a", "a\n---\nb", "---\na\n---\nb\n---", "a\n---b\n---  c",
		"a\n  \n\t---\n\nb", "a---b", "a\n--- \n---\nb", "a\r\n---\r\nb", "\n\n---\n\na\n\n",
		"a\v\n---\vb", "a\u00a0\n---\u00a0b", "a\n----\nb", "a\n-- -\nb", "# c\n---\n# d\n",
		"a: 1\n---\n\n---\nb: 2\n", "\f---\f", "a\n---\n---\n---\nb",
	}
	alphabet := []string{"-", "--", "---", "\n", " ", "\t", "\r", "\f", "\v", "\u00a0", "a", "b: 1", "#"}
	rng := rand.New(rand.NewPCG(42, 7))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		if got, want := splitManifests(c), helmSplit(c); !slices.Equal(got, want) {
			t.Fatalf("splitManifests(%q) = %q, Helm's = %q", c, got, want)
		}
	}
}

func FuzzSplitManifestsAsHelm(f *testing.F) {
	for _, s := range []string{"a\n---\nb", "---\n  \n---x", "a\v\n---\vb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := splitManifests(s), helmSplit(s); !slices.Equal(got, want) {
			t.Fatalf("splitManifests(%q) = %q, Helm's = %q", s, got, want)
		}
	})
}
