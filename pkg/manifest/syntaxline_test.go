package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// brokenDocs are generated broken YAML documents of the shapes people break manifests
// into: a tab in the indentation, an unclosed quote or flow, bad indentation, a stray
// colon, a duplicate key; each at several depths and after several lines.
func brokenDocs() []string {
	heads := []string{
		"apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata:\n  name: t\n",
		"apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata:\n  name: t\nspec:\n  displayName: x\n",
		"apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata:\n  name: t\n  labels:\n    a: b\nspec:\n  access:\n    users:\n      - name: a@example.com\n        role: admin\n",
	}
	breaks := []string{
		"spec:\n\tdisplayName: x\n",                    // tab indentation
		"spec:\n  displayName: \"x\n",                  // unclosed double quote
		"spec:\n  displayName: 'x\n",                   // unclosed single quote
		"spec:\n  tags: [a, b\n",                       // unclosed flow sequence
		"spec:\n  tags: {a: b\n",                       // unclosed flow mapping
		"spec:\n  displayName: x\n   description: y\n", // bad indentation
		"spec:\n  displayName: x\n description: y\n",   // bad indentation, dedented
		"spec:\n  displayName: a: b\n",                 // stray colon
		"spec:\n  displayName: x\n  - y\n",             // a list item in a mapping
		"spec: {}\nspec: {}\n",                         // duplicate key
		"spec:\n  displayName: a\n  displayName: b\n",  // duplicate nested key
		"spec:\n  : x\n",                               // stray colon, no key
		"spec:\n  description: |\n  x\n  y: [\n",
	}
	var out []string
	for _, h := range heads {
		for _, b := range breaks {
			out = append(out, h+b, h+b+"  more: 1\nstatus: {}\n", "# a comment\n---\n"+h+"---\n"+h+b)
		}
	}
	return out
}

var (
	ourLine  = regexp.MustCompile(`^f\.yaml:(\d+):`)
	yamlLine = regexp.MustCompile(`^yaml: line (\d+):`)
)

// referenceLine is the line yaml.v3 names for the first error decoding text's documents in
// sequence, as kubectl reads a file; 0 when it decodes them all.
func referenceLine(t *testing.T, text string) int {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == nil {
			if l := duplicateKey(&n); l > 0 {
				return l
			}
			continue
		}
		if err.Error() == "EOF" {
			return 0
		}
		m := yamlLine.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("yaml.v3's error names no line: %v", err)
		}
		l, _ := strconv.Atoi(m[1])
		return l
	}
}

// duplicateKey is the line of the first key a mapping of n repeats (yaml.v3 reports it
// when decoding into a value, on that line), 0 when none.
func duplicateKey(n *yaml.Node) int {
	if n.Kind == yaml.MappingNode {
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if seen[k.Value] {
				return k.Line
			}
			seen[k.Value] = true
		}
	}
	for _, c := range n.Content {
		if l := duplicateKey(c); l > 0 {
			return l
		}
	}
	return 0
}

// TestSyntaxErrorLines is a differential test: over generated broken documents, the line
// our decoding error names (file:LINE) is the line yaml.v3's own error names.
func TestSyntaxErrorLines(t *testing.T) {
	for i, text := range brokenDocs() {
		want := referenceLine(t, text)
		if want == 0 {
			t.Errorf("case %d: yaml.v3 reads it: %q", i, text)
			continue
		}
		_, err := Decode("f.yaml", []byte(text))
		check(t, i, text, err, want)
		// The load path, which parses with fastyaml first.
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Chdir(dir)
		_, err = Load([]string{"f.yaml"}, nil)
		check(t, i, text, err, want)
	}
}

func check(t *testing.T, i int, text string, err error, want int) {
	t.Helper()
	{
		if err == nil {
			t.Errorf("case %d: decoded: %q", i, text)
			return
		}
		msg := err.Error()
		var le interface{ Unwrap() []error }
		if errors.As(err, &le) && len(le.Unwrap()) > 0 {
			msg = le.Unwrap()[0].Error()
		}
		m := ourLine.FindStringSubmatch(msg)
		if m == nil {
			t.Errorf("case %d: our error names no line: %v", i, err)
			return
		}
		if got, _ := strconv.Atoi(m[1]); got != want {
			t.Errorf("case %d: line %d, yaml.v3 says %d\n%s\n%s", i, got, want, numbered(text), msg)
		}
	}
}

func numbered(text string) string {
	var b strings.Builder
	for i, l := range strings.Split(text, "\n") {
		fmt.Fprintf(&b, "%3d  %s\n", i+1, l)
	}
	return b.String()
}
