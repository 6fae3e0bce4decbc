package fastyaml_test

import (
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/internal/fastyaml"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// accepted are documents of the subset: the fast path must read each, into yaml.v3's tree.
var accepted = []struct{ name, text string }{
	{"block mapping", "a: 1\nb: two\n"},
	{"nested mappings", "a:\n  b:\n    c: d\n  e: f\ng: h\n"},
	{"block sequence", "a:\n  - x\n  - y\n"},
	{"sequence at its key's indentation", "a:\n- x\n- y\nb: z\n"},
	{"sequence at its key's indentation in an entry", "- a: 1\n  b:\n  - x\n  c: 2\n"},
	{"entries holding mappings", "items:\n  - name: a\n    value: 1\n  - name: b\n"},
	{"nested sequences", "- - a\n  - b\n- c\n"},
	{"root sequence", "- a\n- b\n"},
	{"leading document marker", "---\na: 1\n"},
	{"document marker with spaces", "---  \na: 1\n"},
	{"comments everywhere", "# head\na: 1 # line\n  # odd indentation\nb:\n  # inside\n  c: d\n# foot\n"},
	{"comment after an empty value", "a: # nothing\nb: 1\n"},
	{"document after comments and blank lines", "# a\n\n\nkind: x\n"},
	{"indented root", "  a: 1\n  b: 2\n"},
	{"no final newline", "a: 1"},
	{"empty values", "a:\nb:\n"},
	{"empty sequence entry", "- \n-\n- a\n"},
	{"empty value before a key less indented", "a:\n  b:\nc: 1\n"},
	{"empty flow sequence and mapping", "a: []\nb: {}\nc: [] # none\n"},
	{"double-quoted", "a: \"x: y # z\"\nb: \"2\"\nc: \"\"\n"},
	{"single-quoted", "a: 'it''s'\nb: ''\nc: '#'\n"},
	{"spaces around the colon", "a :  b\n"},
	{"colons and hashes inside plain scalars", "a: http://x.example.com:80/p#f\nb: c:d\n"},
	{"trailing spaces", "a: b   \nc: d  # e\n"},
	{"plain strings", "a: v1.31.0\nb: 500m\nc: 4Gi\nd: 10.1.2.3\ne: 10.0.0.0/16\nf: yes\ng: on\nh: -name\ni: ./p\n"},
	{"integers", "a: 0\nb: 42\nc: -7\nd: +3\ne: 9223372036854775807\n"},
	{"booleans and nulls", "a: true\nb: False\nc: TRUE\nd: null\ne: ~\nf: Null\n"},
	{"keys of other tags", "1: a\ntrue: b\nnull: c\n"},
	{"duplicate keys", "a: 1\na: 2\n"},
	{"literal", "a: |\n  x\n   y\n\n  z\nb: 1\n"},
	{"literal strip", "a: |-\n  x\n\n\nb: 1\n"},
	{"literal keep", "a: |+\n  x\n\n\nb: 1\n"},
	{"literal keep at the end", "a: |+\n  x\n\n"},
	{"literal at the end without newline", "a: |\n  x"},
	{"literal with leading blank lines", "a: |\n\n  x\n"},
	{"literal holding comment-like lines", "a: |\n  # not a comment\n  x: y\n# a comment\nb: 1\n"},
	{"literal in a sequence", "- |\n  x\n- >-\n  y\n  z\n"},
	{"folded", "a: >\n  x\n  y\n\n  z\n   more\n  w\n"},
	{"folded strip", "a: >-\n  one\n  two\n"},
	{"folded keep", "a: >+\n  one\n\n"},
	{"block scalar header comment", "a: | # c\n  x\n"},
	{"non-ASCII", "a: café — ok\n"},
	{"columns count characters, not bytes", "é: ü\nnext: é\nl:\n- ö: \n  ä: []\n"},
	{"long keys", "a.b.c/d-e_f: 1\n"},
}

// declined are documents outside the subset, one rule each: the fast path must leave them
// to yaml.v3.
var declined = []struct{ name, text string }{
	{"anchor", "a: &x 1\nb: 2\n"},
	{"alias", "a: 1\nb: *x\n"},
	{"tag", "a: !!str 1\n"},
	{"local tag", "a: !x 1\n"},
	{"directive", "%YAML 1.2\n---\na: 1\n"},
	{"complex key", "? a\n: 1\n"},
	{"flow sequence with content", "a: [1, 2]\n"},
	{"flow mapping with content", "a: {b: 1}\n"},
	{"flow with spaces", "a: [ ]\n"},
	{"tab", "a:\tb\n"},
	{"tab indentation", "a:\n\tb: 1\n"},
	{"carriage return", "a: 1\r\n"},
	{"byte order mark", "\ufeffa: 1\n"},
	{"control character", "a: \x01\n"},
	{"line separator", "a: b\u2028c\n"},
	{"four-byte character", "a: 😀\n"},
	{"invalid UTF-8", "a: \xff\n"},
	{"document end", "a: 1\n...\n"},
	{"text after the document marker", "--- a\n"},
	{"document marker after a blank line", "\n--- key: 1\n"},
	{"document marker after a comment", "# c\n--- key: b\n"},
	{"document marker after content", "a: 1\n--- key: 2\n"},
	{"multi-line plain", "a: b\n  c\n"},
	{"multi-line plain in a sequence", "- b\n  c\n"},
	{"multi-line double-quoted", "a: \"b\n  c\"\n"},
	{"multi-line single-quoted", "a: 'b\n  c'\n"},
	{"escape", "a: \"\\n\"\n"},
	{"text after a quoted scalar", "a: \"b\" c\n"},
	{"quoted key", "\"a\": 1\n"},
	{"hash after a quote", "a: \"b\"#c\n"},
	{"value holding a key", "a: b: c\n"},
	{"value ending with a colon", "a: b:\n"},
	{"scalar on the line after its key", "a:\n  b\n"},
	{"explicit indentation", "a: |2\n  x\n"},
	{"empty block scalar", "a: |\nb: 1\n"},
	{"block scalar with a line of spaces", "a: |\n  x\n     \n  y\n"},
	{"block scalar with a leading line of spaces", "a: |\n     \n  x\n"},
	{"text after a block scalar header", "a: | x\n"},
	{"wrong indentation", "a:\n  b: 1\n c: 2\n"},
	{"more indented key", "a: 1\n  b: 2\n"},
	{"entry in a mapping", "a: 1\n- b\n"},
	{"sequence in a value", "a: - b\n"},
	{"timestamp", "a: 2001-12-14\n"},
	{"float", "a: 1.5\n"},
	{"special float", "a: .inf\n"},
	{"signed infinity", "a: -.inf\nb: +.Inf\n"},
	{"signed infinity as a key", "-.INF: a\n"},
	{"hexadecimal", "a: 0x1f\n"},
	{"octal", "a: 0o17\n"},
	{"old octal", "a: 017\n"},
	{"underscores", "a: 1_000\n"},
	{"integer out of range", "a: 9223372036854775808\n"},
	{"merge key", "<<: {}\n"},
	{"scalar document", "a\n"},
	{"empty document", "# nothing\n"},
	{"too deep", strings.Repeat("- ", 60) + "a\n"},
	{"key too long", strings.Repeat("k", 1100) + ": 1\n"},
	{"reserved indicator", "a: @b\n"},
}

func TestAccepted(t *testing.T) {
	for _, tc := range accepted {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parse(tc.text)
			if !ok {
				t.Fatalf("declined:\n%s", tc.text)
			}
			want, ok := reference(tc.text)
			if !ok {
				t.Fatalf("yaml.v3 refuses the case:\n%s", tc.text)
			}
			if d := diff(got, want, ""); d != "" {
				t.Errorf("%s\n%s", d, tc.text)
			}
		})
	}
}

func TestDeclined(t *testing.T) {
	for _, tc := range declined {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := parse(tc.text); ok {
				t.Errorf("accepted:\n%s", tc.text)
			}
		})
	}
}

// TestNoComments: the tree carries no comments (nothing that reads reads them).
func TestNoComments(t *testing.T) {
	got, ok := parse("# head\na: 1 # line\n")
	if !ok {
		t.Fatal("declined")
	}
	m := got.Content[0]
	for _, n := range []*struct{ h, l, f string }{
		{got.HeadComment, got.LineComment, got.FootComment},
		{m.Content[0].HeadComment, m.Content[1].LineComment, m.FootComment},
	} {
		if n.h != "" || n.l != "" || n.f != "" {
			t.Errorf("comments kept: %+v", *n)
		}
	}
}

// FuzzParse: wherever the fast path accepts a document, yaml.v3 reads it, into the same
// tree.
func FuzzParse(f *testing.F) {
	for _, tc := range accepted {
		f.Add(tc.text)
	}
	for _, tc := range declined {
		f.Add(tc.text)
	}
	for _, text := range tricky() {
		f.Add(text)
	}
	f.Add(manifesttest.Cluster("team-01", "team-01-c00001", 1))
	f.Fuzz(func(t *testing.T, text string) {
		got, ok := parse(text)
		if !ok {
			return
		}
		want, ok := reference(text)
		if !ok {
			t.Fatalf("accepted, yaml.v3 refuses it:\n%q", text)
		}
		if d := diff(got, want, ""); d != "" {
			t.Fatalf("%s\n%q", d, text)
		}
	})
}

// TestOwnMemory: the tree shares no memory with the text, which the loader reads into a
// buffer it reuses.
func TestOwnMemory(t *testing.T) {
	buf := []byte("k: plain\nq: \"double\"\ns: 'it''s'\nl: |\n  lit\nf: >\n  fold\n")
	doc, ok := parse(unsafe.String(unsafe.SliceData(buf), len(buf)))
	if !ok {
		t.Fatal("declined")
	}
	for i := range buf {
		buf[i] = 'x'
	}
	var got []string
	for _, n := range doc.Content[0].Content {
		got = append(got, n.Value)
	}
	want := []string{"k", "plain", "q", "double", "s", "it's", "l", "lit\n", "f", "fold\n"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values after the buffer was overwritten: %q, want %q", got, want)
	}
}

// parse is Parse without a limit, as a yes or no.
func parse(text string) (*yaml.Node, bool) {
	doc, err := fastyaml.Parse(text, math.MaxInt)
	return doc, err == nil
}

// TestLimit: Parse makes at most limit nodes under the document node; the node past
// them is a *LimitError naming its line, whatever follows; a document declined before
// the limit is declined.
func TestLimit(t *testing.T) {
	text := "a:\n- x\n- y\n- z\n" // mapping, key, sequence, three entries
	if _, err := fastyaml.Parse(text, 6); err != nil {
		t.Fatalf("6 nodes, limit 6: %v", err)
	}
	for _, tail := range []string{"", "b: {c: d}\n"} {
		_, err := fastyaml.Parse(text+tail, 5)
		var le *fastyaml.LimitError
		if !errors.As(err, &le) || le.Line != 4 || le.Limit != 5 {
			t.Errorf("6 nodes, limit 5, then %q: %v, want a LimitError at line 4", tail, err)
		}
	}
	if _, err := fastyaml.Parse("b: {c: d}\n"+text, 5); !errors.Is(err, fastyaml.ErrDeclined) {
		t.Fatalf("a flow mapping before the limit: %v, want ErrDeclined", err)
	}
}

// TestLimitBoundsMemory: what Parse allocates is bounded by its limit, not by the bytes
// of the document, whether it keeps the document, refuses it for its size or declines it
// (the densest block YAML: three bytes a node; blank lines, which the slab's estimate
// counts).
func TestLimitBoundsMemory(t *testing.T) {
	const limit = 1 << 10
	dense := "x:\n" + strings.Repeat("- \n", (1<<20)/3)
	for name, text := range map[string]string{
		"dense":             dense,
		"dense, declined":   dense + "y: {}\n",
		"blank lines":       "x: 1\n" + strings.Repeat("\n", 1<<20),
		"blank, then dense": strings.Repeat("\n", 1<<20) + dense,
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := fastyaml.Parse(text, limit)
		runtime.ReadMemStats(&after)
		// The tree's nodes, the content slices and the stack, with room for the
		// runtime's rounding: well under a byte of the document's megabyte per byte.
		if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(limit*300+(1<<20)*3); got > bound {
			t.Errorf("%s: allocated %d bytes, bound %d (%v)", name, got, bound, err)
		}
	}
}
