package manifest

import (
	"errors"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// Walk lists the files LoadWith would read from paths with opts (directories walked,
// symlinks followed, tool folders, opts.Scratch and files reached twice skipped, exactly
// as LoadWith walks), without reading them; errors are LoadWith's errors for what it could
// not walk. Standard input is not listed.
func Walk(paths []string, opts Options) ([]string, error) {
	var files []string
	r := newReader(Options{Scratch: opts.Scratch, Exclude: opts.Exclude, IgnoreFile: opts.IgnoreFile}, nil)
	r.list = func(name string) { files = append(files, name) }
	for _, p := range paths {
		if p == Stdin {
			continue
		}
		r.path(p, nil)
	}
	return files, errors.Join(r.errs...)
}

// FieldOrigin says that a field of a rendered object (and what is below it) was set at
// File:Line, by a patch or an overlay, rather than where the object was written.
type FieldOrigin struct {
	Field string // as field.Path renders it
	File  string
	Line  int
	// Note, when not "", says how File:Line set the field (a chart's template from a
	// values key), for a finding to say.
	Note string
}

// Rendered returns rendered (an object a renderer made, such as a kustomize build) placed
// where src was written: its Source and the lines of its fields are src's, so findings on
// it land in the file a person edits.
func Rendered(rendered Object, src *Object) Object {
	rendered.Source, rendered.lines = src.Source, src.lines
	return rendered
}

// MapFiles renames every file o names (where it was written, where patches set its
// fields, where its unjudged fields are): a renderer that built o from a copy of the files
// (a Flux artifact) names the files a person edits. Lines stay: a copy holds the same text.
func (o *Object) MapFiles(f func(string) string) {
	o.Source.File = f(o.Source.File)
	o.origins = mapOrigins(o.origins, f)
	o.NotJudged = mapOrigins(o.NotJudged, f)
}

func mapOrigins(fos []FieldOrigin, f func(string) string) []FieldOrigin {
	if fos == nil {
		return nil
	}
	out := make([]FieldOrigin, len(fos)) // the slice may be shared with the object copied
	for i, fo := range fos {
		fo.File = f(fo.File)
		out[i] = fo
	}
	return out
}

// AddOrigin points a field of o, and the fields below it, at where a patch set it.
func (o *Object) AddOrigin(fo FieldOrigin) { o.origins = append(o.origins, fo) }

// Position is the file and line of a field of o: the patch that set it when a renderer
// said so (the most specific one), else where o was written (Line).
func (o *Object) Position(field string) (string, int) {
	if fo, ok := o.origin(field); ok {
		return fo.File, fo.Line
	}
	return o.Source.File, o.Line(field)
}

// OriginNote is the Note of the origin Position gives a field, "" for none.
func (o *Object) OriginNote(field string) string {
	fo, _ := o.origin(field)
	return fo.Note
}

// origin is the most specific origin that covers a field (its own, or one of a field above
// it), the last of equal ones; without one, the most specific of the fields below it (a
// patch that set spec.workers.replicas answers for spec.workers). An origin below the field
// must not win over one of the field itself: a chart's template gives every field its line,
// and "spec" is at its own, not at whichever field below it came last.
func (o *Object) origin(field string) (FieldOrigin, bool) {
	if field == "" {
		return FieldOrigin{}, false
	}
	want := yamldoc.FieldSteps(field)
	best, below := -1, -1
	for i, fo := range o.origins {
		got := yamldoc.FieldSteps(fo.Field)
		switch {
		case yamldoc.PrefixOf(got, want):
			// The most specific wins; of equal ones the last, as patches apply in order.
			if best < 0 || len(got) >= len(yamldoc.FieldSteps(o.origins[best].Field)) {
				best = i
			}
		case yamldoc.PrefixOf(want, got):
			if below < 0 || len(got) >= len(yamldoc.FieldSteps(o.origins[below].Field)) {
				below = i
			}
		}
	}
	if best < 0 {
		best = below
	}
	if best >= 0 {
		return o.origins[best], true
	}
	return FieldOrigin{}, false
}

// FieldSteps splits a field path into its steps (yamldoc.FieldSteps), for renderers that
// index their patches' fields.
func FieldSteps(p string) []string { return yamldoc.FieldSteps(p) }
