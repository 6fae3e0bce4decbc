package manifest

import (
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// typedObject decodes an object of a known kind straight into its Go type (fill). When
// only fields are wrong (a type, a name), the rest is still validated, so that one run
// reports every problem of the object: those of the fields that decoded, and not again
// those of the fields that did not.
func (d *decoder) typedObject(o Object, n *yaml.Node, h header, ki *schema.Kind, c *schema.Converter, lines *lineIndex) (Object, []error) {
	obj := ki.NewTyped()
	ok := c.Fill(n, obj)
	lines.Done()
	o.lines, o.NotJudged = lines, notJudged(c.Tolerated(), o.Source.File)
	o.explicit = c.Explicit()
	ki.SetType(obj, h.APIVersion, h.Kind)
	problems := c.Problems()
	if ok && len(problems) == 0 {
		o.Obj = obj
		return o, nil
	}
	errs := make([]*DecodeError, 0, len(problems))
	for _, e := range problems {
		errs = append(errs, o.errorAt(e.Field, e.Line, "%s", e.Msg))
	}
	if len(errs) == 0 {
		return o, []error{o.errorAt("", 0, "invalid document")}
	}
	if d.opts.validate && !c.Broken() {
		partial := o
		partial.Obj = obj
		errs = append(errs, besides(validateObject(partial), errs)...)
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return o, out
}

// besides drops the findings of fields that did not decode (or of what holds them, or
// of what they hold): the field is not missing or wrong in the way validation would say.
func besides(found, decodeErrs []*DecodeError) []*DecodeError {
	var out []*DecodeError
	for _, f := range found {
		fs := yamldoc.FieldSteps(f.Field)
		related := false
		for _, d := range decodeErrs {
			ds := yamldoc.FieldSteps(d.Field)
			if len(fs) == 0 || len(ds) == 0 || yamldoc.PrefixOf(ds, fs) || yamldoc.PrefixOf(fs, ds) {
				related = true
				break
			}
		}
		if !related {
			out = append(out, f)
		}
	}
	return out
}

// notJudged lists the fields Options.Tolerate kept out, where file writes them.
func notJudged(tolerated []schema.Problem, file string) []FieldOrigin {
	var out []FieldOrigin
	for _, t := range tolerated {
		out = append(out, FieldOrigin{Field: t.Field, File: file, Line: t.Line})
	}
	return out
}
