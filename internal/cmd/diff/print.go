package diff

import (
	"context"
	"fmt"
	"io"

	"github.com/butlerdotdev/butler-toolkit/internal/livediff"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Change is one line of -o json: a livediff change and, for a tree with entry points, the
// target it belongs to.
type Change struct {
	Target string `json:"target,omitempty"`
	livediff.Change
}

// print prints the sections by -o and reports whether there are differences: any
// change listed, or the diff program's exit 1.
func (o *Options) print(ctx context.Context, sections []section) (bool, error) {
	view := []Change{}
	for _, s := range sections {
		for _, c := range s.changes {
			view = append(view, Change{Target: s.target, Change: c})
		}
	}
	differ := len(view) > 0
	doc := output.Doc{View: view, Text: func(w io.Writer) error {
		found, err := o.unified(ctx, w, sections)
		differ = differ || found
		return err
	}}
	return differ, o.Printer.Print(doc)
}

// unified runs the diff program over each section's added and changed objects, then
// names its drift, a section per target.
func (o *Options) unified(ctx context.Context, w io.Writer, sections []section) (bool, error) {
	found := false
	for _, s := range sections {
		if s.target != "" {
			fmt.Fprintf(w, "# target %s\n", inert.Line(s.target))
		}
		var applied, drift []livediff.Change
		for _, c := range s.changes {
			if c.Change == livediff.Drift {
				drift = append(drift, c)
			} else {
				applied = append(applied, c)
			}
		}
		if len(applied) > 0 {
			d, err := livediff.WriteDirs(applied)
			if err != nil {
				return found, fmt.Errorf("writing the objects to diff: %w", err)
			}
			differ, err := livediff.Run(ctx, o.ExternalDiff, d, w, o.IO.ErrOut)
			d.Remove()
			if err != nil {
				return found, err
			}
			found = found || differ
		}
		for _, c := range drift {
			found = true
			fmt.Fprintf(w, "drift: %s %s is live and not in the manifests\n", c.Kind, inert.Line(name(c)))
		}
	}
	return found, nil
}

func name(c livediff.Change) string {
	if c.Namespace == "" {
		return c.Name
	}
	return c.Namespace + "/" + c.Name
}
