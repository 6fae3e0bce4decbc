package fastyaml_test

import (
	"testing"
)

// tricky are documents near the subset's edges (tag resolution, indentation, block
// scalars, quotes, markers, comments, non-ASCII): wherever the fast path accepts one,
// yaml.v3 must read it into the same tree. FuzzParse starts from them too.
func tricky() []string {
	vals := []string{"1e3", "1E+3", ".5", "+1", "-0", "0.0", "1_000", "0x1f", "0o17", "0b11", "0777", "2001-12-14",
		"2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "<<", ".inf", ".NaN", "-.inf", "+.inf", "-.Inf", "+.INF", "-.nan",
		"True", "TRUE", "tRUE", "Null", "NULL", "nULL", "~", "y", "yes", "on", "off", "", "a: b", "a #b", "a#b", "a:", "x'y", "x\"y",
		"1.2.3", "-", "+", "-1-", "1:2", "1:2:3", "12:30", "-1.5", "+.5", "-.5", "0.", "1.", "1e", "infinity", "-inf", "+nan",
		"-0.0", "1__0", "_1", "1_", "0_1", "- a", "-a", "--a", "-- a", "-\u00e9", "é", "a\u00a0", "\u00a0a", "a b", "a  b   ", "...", "..", ".", "..a", ".a",
		"0x", "0o", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "+0", "00", "-00", "2001-1-2", "2001-12-14T", "1 2", "1.2 ",
	}
	var docs []string
	for _, v := range vals {
		docs = append(docs, "k: "+v+"\n", v+": x\n", "- "+v+"\n", "k: "+v, "- "+v+" # c\n", "a:\n  "+v+": 1\n")
	}
	docs = append(docs,
		"a:\n- x\n b: 1\n", "a:\n  - x\n - y\n", "a:\n  b: 1\n c: 2\n", "a: 1\n b: 2\n", "- a\n - b\n", "- a: 1\n   b: 2\n", "- a: 1\n  b: 2\n - c\n",
		"a: |\n\n\n  x\n", "a: >\n  x\n\n    y\n  z\n", "a: >\n    y\n  z\n", "a: >\n  x\n    y\n\n  z\n", "a: |+\n  x\n\n\n", "a: |-\n  x\n\n", "a: |\n  x\n\n",
		"a: >\n  x\n", "a: |+\n  x", "a: |\n  x\n \n", "a: |\n  x\n  \n  y\n", "- - a\n  - b\n", "- - - a\n    - b\n  - c\n", "- - a\n - b\n",
		"- key: v\n  other: w\n", "- key: v\n    other: w\n", "- key: v\n other: w\n", "key:    value\n", "key:value\n", "key:value: x\n",
		"a: 'it''s'\n", "a: 'x' y\n", "a: 'x'y\n", "a: 'x\n", "a: \"x\n", "'a': 1\n", "a: b\na: c\n", "a:\n  b: 1\na:\n  b: 2\n",
		"--- a: 1\n", "--- |\n  x\n", "---\n", "---\n# c\n", "key: # c\n  x: 1\n", "- # c\n  a: 1\n", "- # c\n- b\n", "a: b#c\n", "a: b #c\n", "a: [ ]\n", "a: { }\n", "a: []x\n",
		"é: x\nb:\n  ü: 1\n", "a: x\ufeffy\n", "a:\n  b:\n", "a:\n\n  b: 1\n", "a:\n  \n  b: 1\n", "  a: 1\nb: 2\n", "a: 1\n  # c\nb: 2\n",
		"a:\n  - b\n  -\n  - c\n", "a:\n-\n", "a: -\n", "a: - \n", "-\n", "- \n  a: 1\n", "-\n  a: 1\n", "- a:\n  - b\n", "- a:\n  b: 1\n", "- a:\n   b: 1\n",
		"a: |\n  x\n b: 1\n", "a: |\n   x\n  y\n", "- |\n x\n", "- >\n  a\n  b\n- c\n", "a: >-\n\n  x\n\n", "a: >+\n\n  x\n\n", "a: |\n  x\n# c\n  y\n",
		"a: |\n  x\n  # c\n", "a:  |\n  x\n", "a: |  \n  x\n", "a: |#c\n  x\n", "a: |-#\n  x\n", "a: >\n\n\n", "a: 'b'#c\n", "a: ''''\n", "a: 'x''\n",
		"a:  # c\n  - x\n", "a:\n  - x\n  - y\nb:\n- z\n", "? a\n", "a: b\n...\n", "a: b\n--- \n", "a: b\n---\nc: d\n", "a: b\n- c\n", "a\n", "a: b\nc\n", "a: b\n  c: d\n",
		"a: \"x\"  # c\n", "a: \"\"\n", "a: \"x\" \n", "a: \"'\"\n", "a: '\"'\n", "a:\n- b: 1\n  - c\n", "- a\n-b\n", "-a: 1\n", "a-: 1\n", "a : b\n", "a :b\n", "a  : b\n",
		"a: \u00e9: b\n", "a: b :c\n", "a: b: \n", "a: b:c\n", "a: b,c\n", "a: b]\n", "a: b}\n", "a: b[\n", "a: b{\n", "a: }b\n", "a: b\"c\n", "a: %b\n", "a: b%\n", "a: `b\n",
	)
	// Empty values (their positions), block scalars at each indentation, non-ASCII.
	docs = append(docs, "a:   \nb: 1\n", "a:   # c\nb: 1\n", "-   \n- a\n", "a:", "a:  ", "a:\n  b:\nc:", "a:\n  b:  ", "-", "- ", "-\n", "a:\n- |\n x\n",
		"a:\n  b:\n  # c\n", "a:\n\n\n", "a:\n  \n", "- a:\n  -\n", "a:\n-\n-\nb:\n", "a:\n  - b:\n    c:\n", "a: |\n  x\n\n\n  # c\n", "a: >\n  x\n\n\n", "a: >-\n  x\n  \n",
		"a: >\n  x\n   \n  y\n", "a: >\n   x\n  y\n", "a: |\n  x\n  y", "a: |-\n  x", "a: >+\n  x", "a: |\n  x\n\n  ", "a: |\n  x\n  \n", "a: |\n  x\n \n  y\n", "a: |\n x\n",
		"- a: |\n   x\n  b: 1\n", "- a: |\n    x\n  b: 1\n", "- - |\n    x\n", "- - |\n   x\n", "- - |\n  x\n", "a:\n  - |\n   x\n", "a:\n  - |\n    x\n", "a:\n- |\n  x\n- y\n",
		"a: >\n  x\n  \n  y\n", "a: >\n\n  x\n", "a: >\n  \n  x\n", "a: >\n \n  x\n", "a: |\n \n  x\n", "a: |\n  \n  x\n", "a: >\n  x\n\n  \n  y\n", "a: >\n  x\n  y\n   z\n  w\n\n  v\n",
		"é: |\n  ü\n", "ü: [] \n", "a: ä # c\n", "a: 'é''é'\n", "- é\n- ü: é\n  ö: 1\n", "a:\n  é:\n  - x\n", "x: é\u00a0# c\n",
	)
	return docs
}

func TestTricky(t *testing.T) {
	for _, d := range tricky() {
		got, ok := parse(d)
		if !ok {
			continue
		}
		want, ok := reference(d)
		if !ok {
			t.Errorf("accepted, yaml.v3 refuses: %q", d)
			continue
		}
		if s := diff(got, want, ""); s != "" {
			t.Errorf("%q: %s", d, s)
		}
	}
}
