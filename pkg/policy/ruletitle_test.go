package policy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// Every preflight rule id declared in admission.go has a title of its own.
func TestEveryRuleHasATitle(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "admission.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Rule") || len(vs.Values) != 1 {
			return true
		}
		lit, ok := vs.Values[0].(*ast.BasicLit)
		if !ok {
			return true
		}
		id, _ := strconv.Unquote(lit.Value)
		n++
		title := RuleTitle(id)
		if title == id {
			t.Errorf("%s (%q) has no title", vs.Names[0].Name, id)
		}
		if other, dup := seen[title]; dup {
			t.Errorf("%q and %q share the title %q", id, other, title)
		}
		seen[title] = id
		return true
	})
	if n < 20 {
		t.Fatalf("found only %d rule ids in admission.go", n)
	}
	if got := RuleTitle(RuleCreationPolicy + "image"); got != "policy: image" {
		t.Errorf("creation policy rule: %q", got)
	}
}
