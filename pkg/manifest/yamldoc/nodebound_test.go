package yamldoc

import (
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// treeNodes counts the nodes of yaml.v3's tree of text, document node included (an alias
// is one node: the tree points at its anchor); false when yaml.v3 refuses the text.
func treeNodes(text string) (int, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return 0, false
	}
	n := 0
	var walk func(*yaml.Node)
	walk = func(x *yaml.Node) {
		n++
		for _, c := range x.Content {
			walk(c)
		}
	}
	walk(&doc)
	return n, true
}

// boundPieces are what the generated documents are made of: every indicator, the line
// breaks YAML knows, quotes, comments, block scalars, anchors, aliases and tags.
var boundPieces = []string{
	"-", "- ", "-\n", " ", "  ", "\n", "\t", "\r\n", ":", ": ", ":\n", "?", "? ", "[", "]", "{", "}",
	",", ", ", "a", "b", "ab", "&x ", "*x", "!!str ", "!t ", "'", "'q'", "\"", "\"q\"", "|\n", ">-\n",
	"# c\n", "\u2028", "\u0085", "\u2029", "é", "---\n", "...\n", "<<: ", "\"a\":b", "a:b", "%",
}

// genFlow writes a random node in flow style: scalars, empty nodes, anchors, aliases,
// sequences and mappings with implicit, explicit and empty keys and values.
func genFlow(r *rand.Rand, b *strings.Builder, depth int) {
	if depth > 3 {
		b.WriteString([]string{"a", "", "'q'", "*x"}[r.Intn(4)])
		return
	}
	switch r.Intn(9) {
	case 0, 1:
		b.WriteString([]string{"a", "b c", "\"q\"", "'q'", "*x", "&x a", "!!str a", "", "-1"}[r.Intn(9)])
	case 2, 3, 4:
		b.WriteString("[")
		for i, n := 0, r.Intn(7); i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			switch r.Intn(4) {
			case 0: // a single pair, key or value empty
				genFlow(r, b, depth+3)
				b.WriteString(": ")
				genFlow(r, b, depth+1)
			case 1:
				b.WriteString("? ")
				genFlow(r, b, depth+1)
			default:
				genFlow(r, b, depth+1)
			}
		}
		b.WriteString([]string{"]", ",]"}[r.Intn(2)])
	default:
		b.WriteString("{")
		for i, n := 0, r.Intn(7); i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			switch r.Intn(4) {
			case 0:
				fmt.Fprintf(b, "k%d", i) // a key without a value
			case 1:
				fmt.Fprintf(b, "k%d:", i)
			case 2:
				fmt.Fprintf(b, "? k%d", i)
			default:
				fmt.Fprintf(b, "k%d: ", i)
				genFlow(r, b, depth+1)
			}
		}
		b.WriteString("}")
	}
}

// genBlock writes a random node in block style at indent ind (the first line's indent
// already written by the caller when inline).
func genBlock(r *rand.Rand, b *strings.Builder, ind, depth int) {
	pad := strings.Repeat(" ", ind)
	if depth > 4 {
		genFlow(r, b, 2)
		b.WriteString("\n")
		return
	}
	switch r.Intn(6) {
	case 0:
		genFlow(r, b, depth)
		b.WriteString("\n")
	case 1:
		b.WriteString("|\n" + pad + "  - a: b\n" + pad + "  - [c]\n")
	case 2, 3:
		for i, n := 0, 1+r.Intn(3); i < n; i++ {
			if i > 0 {
				b.WriteString(pad)
			}
			switch r.Intn(3) {
			case 0:
				b.WriteString("-\n") // an empty entry
			case 1:
				b.WriteString("- ")
				genBlock(r, b, ind+2, depth+1)
			default:
				b.WriteString("-\n" + pad + "  ")
				genBlock(r, b, ind+2, depth+1)
			}
		}
	default:
		for i, n := 0, 1+r.Intn(3); i < n; i++ {
			if i > 0 {
				b.WriteString(pad)
			}
			switch r.Intn(4) {
			case 0:
				fmt.Fprintf(b, "k%d:\n", i) // an empty value
			case 1:
				fmt.Fprintf(b, "? k%d\n", i) // an explicit key, no value
			case 2:
				fmt.Fprintf(b, "k%d: ", i)
				genFlow(r, b, depth)
				b.WriteString(" # c\n")
			default:
				fmt.Fprintf(b, "k%d:\n%s  ", i, pad)
				genBlock(r, b, ind+2, depth+1)
			}
		}
	}
}

// TestNodeBoundHolds: NodeBound is never below the nodes yaml.v3 builds, on thousands of
// generated documents that yaml.v3 accepts (block and flow nodes nested in each other,
// empty keys, values and entries, anchors, aliases, tags; and random runs of every piece
// of YAML's syntax) and on every manifest of the repository.
func TestNodeBoundHolds(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	accepted := 0
	for i := 0; accepted < 8000 && i < 400000; i++ {
		var b strings.Builder
		switch i % 3 {
		case 0:
			b.WriteString("&x a: ")
			genFlow(r, &b, 0)
			b.WriteString("\nb:\n  ")
			genBlock(r, &b, 2, 0)
		case 1:
			b.WriteString("- &x a\n- ")
			genBlock(r, &b, 2, 0)
		default:
			for n := 1 + r.Intn(24); n > 0; n-- {
				b.WriteString(boundPieces[r.Intn(len(boundPieces))])
			}
		}
		text := b.String()
		nodes, ok := treeNodes(text)
		if !ok {
			continue
		}
		accepted++
		if bound := NodeBound(text); bound < nodes {
			t.Errorf("NodeBound(%q) = %d, yaml.v3 builds %d nodes", text, bound, nodes)
		}
	}
	if accepted < 8000 {
		t.Fatalf("only %d generated documents accepted by yaml.v3", accepted)
	}
	// The tightest shapes: each token stands for as many nodes as it can.
	for _, text := range []string{"[a: ,b: ,c: ]", "? \n? \n? \n", "- - - -\n", "[[[[]]]]",
		"{a, b, c}", "a:\nb:\nc:\n", "- ? \n- ? \n", "[? a, ? b]", "{? , ? }"} {
		nodes, ok := treeNodes(text)
		if !ok {
			t.Errorf("yaml.v3 refuses %q", text)
		} else if bound := NodeBound(text); bound < nodes {
			t.Errorf("NodeBound(%q) = %d, yaml.v3 builds %d nodes", text, bound, nodes)
		}
	}
	files := 0
	for _, dir := range []string{"../../../examples", "../../../testdata", "../../../config", "../../../deploy"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !isManifest(d.Name()) {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, seg := range SplitDocuments(string(data)) {
				if nodes, ok := treeNodes(seg.Text); ok && NodeBound(seg.Text) < nodes {
					t.Errorf("%s, document %d: NodeBound %d, yaml.v3 builds %d nodes", p, seg.Doc, NodeBound(seg.Text), nodes)
				}
			}
			files++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("only %d manifest files read", files)
	}
}

// FuzzNodeBound: the same property on any text yaml.v3 accepts.
func FuzzNodeBound(f *testing.F) {
	for _, p := range boundPieces {
		f.Add(p + p + p)
	}
	f.Add("?\n?\n?\n")
	f.Add("- - - -\n")
	f.Add("[a: , ? : b, {c}]")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		if nodes, ok := treeNodes(text); ok && NodeBound(text) < nodes {
			t.Errorf("NodeBound(%q) = %d, yaml.v3 builds %d nodes", text, NodeBound(text), nodes)
		}
	})
}

// TestNodeBoundMargin: the bound of a dense manifest as people write it (flow mappings,
// short words) stays within three times its nodes, under the four times that refuses a
// document unparsed.
func TestNodeBoundMargin(t *testing.T) {
	text := "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata: {name: t}\nspec:\n  access:\n    users:\n" +
		strings.Repeat("    - {name: u@example.com, role: viewer}\n", 20000)
	nodes, ok := treeNodes(text)
	if !ok {
		t.Fatal("yaml.v3 refuses the Team")
	}
	if bound := NodeBound(text); bound > 3*nodes {
		t.Errorf("a Team of 20,000 users in flow style: bound %d for %d nodes, over three times", bound, nodes)
	}
}

// isManifest is what a Load reads of a directory, by name.
func isManifest(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}
