package schema

import (
	"math"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The remembered and hand-read metadata rules give apimachinery's findings exactly.
func TestMetadataRulesAsApimachinery(t *testing.T) {
	names := []string{"a", "team-15-c06615", "a.b.c", "A", "-a", "a-", "a..b", ".a", "a.", "a_b", "ä",
		"a.-b", "a-.b", "0", "9x", strings.Repeat("a", 63), strings.Repeat("a", 64),
		strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 127) + "a", "", "a b", "a/b"}
	for _, n := range names {
		if got, want := validateName(n), apimachineryvalidation.NameIsDNSSubdomain(n, false); !reflect.DeepEqual(got, want) {
			t.Errorf("name %q: %q, apimachinery %q", n, got, want)
		}
		for range 2 { // the second time from what is remembered
			if got, want := validateNamespaceName(n), apimachineryvalidation.ValidateNamespaceName(n, false); !reflect.DeepEqual(got, want) {
				t.Errorf("namespace %q: %q, apimachinery %q", n, got, want)
			}
		}
	}
	keys := append(names, "example.com/a", "Example.com/a", "example.com/", "/a", "a/b/c", "a.b/c_d.E-f",
		"example.com/"+strings.Repeat("a", 64), strings.Repeat("a", 254)+"/b", "x/-a", "x/a-", "é/a", "a\x00")
	for _, k := range keys {
		if got, want := qualifiedName(k), labelKeyOK(k); got != want {
			t.Errorf("label key %q: read as %v, apimachinery %v", k, got, want)
		}
		if got, want := labelValue(k), labelValueOK(k); got != want {
			t.Errorf("label value %q: read as %v, apimachinery %v", k, got, want)
		}
		if got, want := dnsSubdomain(k), len(apimachineryvalidation.NameIsDNSSubdomain(k, false)) == 0; got != want {
			t.Errorf("subdomain %q: read as %v, apimachinery %v", k, got, want)
		}
	}
	p := field.NewPath("metadata", "labels")
	maps := []map[string]string{
		nil, {}, {"app.kubernetes.io/name": "x", "tier": "tier-1"}, {"Bad Key": "x"}, {"ok": "bad value!"},
		{"example.com/a": "b", "-x": "y"}, {strings.Repeat("k", 64): "v"}, {"ok": strings.Repeat("v", 64)},
		{"a": strings.Repeat("v", apimachineryvalidation.TotalAnnotationSizeLimitB)},
	}
	for _, m := range maps {
		for range 2 {
			if got, want := validateLabels(m, p), metav1validation.ValidateLabels(m, p); !sameErrs(got, want) {
				t.Errorf("labels %v: %v, apimachinery %v", m, got, want)
			}
			if got, want := validateAnnotations(m, p), apimachineryvalidation.ValidateAnnotations(m, p); !sameErrs(got, want) {
				t.Errorf("annotations %v: %v, apimachinery %v", m, got, want)
			}
		}
	}
}

func sameErrs(a, b field.ErrorList) bool {
	s := func(l field.ErrorList) []string {
		out := []string{}
		for _, e := range l {
			out = append(out, e.Error())
		}
		sort.Strings(out)
		return out
	}
	return reflect.DeepEqual(s(a), s(b))
}

// A remembered set stays bounded however many strings it is asked about: its count stops
// at the bound instead of wrapping around.
func TestGoodSetBounded(t *testing.T) {
	g := goodSet{max: 2}
	ok := func(string) bool { return true }
	for i := range 5 {
		g.good(strconv.Itoa(i), ok)
	}
	if n := g.n.Load(); n != 2 {
		t.Errorf("count %d after 5 new strings, want it to stop at 2", n)
	}
	g.n.Store(math.MaxInt32) // a long run's count
	g.good("late", ok)
	if _, kept := g.m.Load("late"); kept {
		t.Error("a string past the bound was remembered")
	}
}

// What the plain readings accept, apimachinery accepts, over many short strings of the
// characters the rules turn on (and names near the length bounds): a fixed list misses
// the combinations.
func TestPlainReadingsAsApimachineryRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	alphabet := []string{"a", "z", "A", "0", "9", "-", "_", ".", "/", "é", " ", "\n", "\x00"}
	for range 100000 {
		var b strings.Builder
		if rng.Intn(50) == 0 {
			b.WriteString(strings.Repeat("a", 60+rng.Intn(6)))
		}
		for range rng.Intn(8) {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		s := b.String()
		if qualifiedName(s) && !labelKeyOK(s) {
			t.Errorf("label key %q read as good, apimachinery refuses it", s)
		}
		if labelValue(s) && !labelValueOK(s) {
			t.Errorf("label value %q read as good, apimachinery refuses it", s)
		}
		if got, want := dnsSubdomain(s), len(apimachineryvalidation.NameIsDNSSubdomain(s, false)) == 0; got != want {
			t.Errorf("subdomain %q: read as %v, apimachinery %v", s, got, want)
		}
	}
}
