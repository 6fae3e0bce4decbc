package schema

import (
	"errors"
	"reflect"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// Budget bounds the nodes the converters of one Load convert together, so that many
// documents each within yamldoc.MaxNodes cannot add up to exhaust memory.
type Budget interface {
	// Take counts one node of weight w. It is false past a bound of the run, with the
	// message of the bound the first time one is crossed ("" afterwards).
	Take(w int) (ok bool, msg string)
}

// Options are what a Converter of a Load shares with the others.
type Options struct {
	Budget Budget // nil: the document alone is bounded
	Weight int    // of each node against Budget
	// Lines receives the line of each field (nil: lines not recorded).
	Lines *yamldoc.LineIndex
	// Intern shares repeated strings between the objects of a Load (nil: none).
	Intern *yamldoc.Interner
	// Tolerate, when set, keeps an unknown field out of the object instead of refusing it
	// (a field the tree's CRD declares and the tools do not know yet).
	Tolerate func(path string) bool
}

// Converter converts the YAML of one object: into the Go type of its kind (Fill), or into
// JSON values for a kind kept loosely (Untyped); every problem names its field and line.
type Converter struct{ c *converter }

// NewConverter returns the converter of an object of kind ki (nil: a kind kept loosely,
// whose unknown fields are not refused).
func NewConverter(ki *Kind, o Options) *Converter {
	c := newConverter(ki != nil && ki.strict)
	c.budget, c.weight, c.lines, c.intern, c.tolerate = o.Budget, o.Weight, o.Lines, o.Intern, o.Tolerate
	return &Converter{c}
}

// Fill decodes n into obj, a new object of a known kind (Kind.NewTyped); false after an
// error (see Problems).
func (c *Converter) Fill(n *yaml.Node, obj runtime.Object) bool {
	return c.c.fill(n, reflect.ValueOf(obj).Elem(), nil, 0)
}

// Untyped converts n into JSON values (map[string]any, []any, string, int64, float64,
// bool, nil); false after an error.
func (c *Converter) Untyped(n *yaml.Node) (any, bool) { return c.c.untyped(n, nil, 0) }

// Problem is one thing wrong with a field of a document, or one field Tolerate kept out.
type Problem struct {
	Field string // as field.Path renders it; "" for the document
	Line  int
	Msg   string
}

// Problems are the errors met, in the order met.
func (c *Converter) Problems() []Problem { return problems(c.c.errs) }

// Tolerated are the unknown fields Options.Tolerate kept out of the object.
func (c *Converter) Tolerated() []Problem { return problems(c.c.tolerated) }

func problems(errs []convError) []Problem {
	out := make([]Problem, 0, len(errs))
	for _, e := range errs {
		out = append(out, Problem{Field: e.field, Line: e.line, Msg: e.msg})
	}
	return out
}

// Explicit are the fields Fill met set to a value the object cannot show, for Validate;
// nil for nearly every document.
func (c *Converter) Explicit() *Explicit {
	if len(c.c.explicit) == 0 {
		return nil
	}
	return &Explicit{vals: c.c.explicit}
}

// Broken reports that the document itself is in doubt (a bound crossed, an alias or merge
// key that does not resolve, a key that is not text), not only some of its fields.
func (c *Converter) Broken() bool { return c.c.broken }

// Untyped converts n, unbounded by any Budget, into JSON values; false when n is not
// valid data (an alias that does not resolve, a key that is not text, too many nodes).
func Untyped(n *yaml.Node) (any, bool) { return newConverter(false).untyped(n, nil, 0) }

// Scalar is the JSON value of a scalar node as a reader takes it (its tag resolved).
func Scalar(n *yaml.Node) (any, bool) { return newConverter(false).scalar(n, nil) }

// EachPair calls fn for each key and value of the mapping n, merge keys ("<<") expanded
// as a reader expands them; depth is n's, against the bound on nesting.
func EachPair(n *yaml.Node, depth int, fn func(k string, kn, vn *yaml.Node)) error {
	c := newConverter(false)
	c.eachPair(n, nil, depth, fn)
	if len(c.errs) > 0 {
		return errors.New(c.errs[0].msg)
	}
	return nil
}
