package manifest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
	"golang.org/x/sync/semaphore"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// Decode reads every object of a file: multi-document YAML or JSON. Empty documents are
// skipped (but counted in Source.Doc); List documents (kind List, TeamList, ...) give one
// object per item. Known kinds are decoded strictly; see the package comment. On error the
// objects that decoded cleanly are returned along with every problem found (errors.Join of
// *DecodeError).
func Decode(file string, data []byte) ([]Object, error) {
	return decode(file, data, Options{}, newBudget(), newPathTable())
}

func decode(file string, data []byte, opts Options, b *budget, tab *pathTable) ([]Object, error) {
	if err := checkJSON(file, data); err != nil {
		return nil, err
	}
	b.grant(len(data))
	return decodeDocuments(file, string(data), opts, b, tab)
}

// decodeDocuments is decode once the file has passed checkJSON.
func decodeDocuments(file string, text string, opts Options, b *budget, tab *pathTable) ([]Object, error) {
	objs, _, err := decodeSegments(file, yamldoc.SplitDocuments(text), opts, b, tab)
	return objs, err
}

// decodeSegments decodes the documents of a file; for a file whose clusters a Load keeps
// as records it also says where each document holding a TenantCluster lies (lean.go), by
// document index.
func decodeSegments(file string, segs []segment, opts Options, b *budget, tab *pathTable) ([]Object, map[int]*docSpan, error) {
	var objs []Object
	var errs []error
	var spans map[int]*docSpan
	for _, seg := range segs {
		if seg.Doc < 0 {
			continue
		}
		if b.spent() {
			break // reported once, by the document that spent it
		}
		if len(seg.Text) > MaxDocumentBytes {
			errs = append(errs, &DecodeError{File: file, Doc: seg.Doc, Line: seg.Line,
				Msg: fmt.Sprintf("document larger than %s (the limit per YAML document)", fileio.Size(MaxDocumentBytes))})
			continue
		}
		o, e, derr := decodeSegment(file, seg, opts, b, tab)
		if derr != nil {
			errs = append(errs, derr)
			continue
		}
		if len(o) > 0 && o[0].Kind == "TenantCluster" && o[0].Source.Item == 0 {
			if sp := leanSpan(opts, file, seg); sp != nil {
				if spans == nil {
					spans = map[int]*docSpan{}
				}
				spans[seg.Doc] = sp
			}
		}
		objs = append(objs, o...)
		errs = append(errs, e...)
	}
	return objs, spans, errors.Join(errs...)
}

// trees bounds the parse trees alive at once in the process, on any number of cores: a
// document holds its yamldoc.NodeBound (at most yamldoc.MaxParseNodes) from before it is parsed until it
// is converted, when its tree becomes garbage.
var trees = semaphore.NewWeighted(yamldoc.MaxParseNodes)

// decodeSegment parses and converts one document: its objects and their errors, or the
// error that kept it from being read.
func decodeSegment(file string, seg segment, opts Options, b *budget, tab *pathTable) ([]Object, []error, error) {
	hold := int64(min(yamldoc.NodeBound(seg.Text), yamldoc.MaxParseNodes))
	_ = trees.Acquire(context.Background(), hold) // never fails: no deadline, hold <= the size
	defer trees.Release(hold)
	doc, line, msg, err := loadSegment(seg)
	if err != nil {
		return nil, nil, &DecodeError{File: file, Doc: seg.Doc, Line: line, Msg: msg}
	}
	if doc == nil {
		return nil, nil, nil
	}
	shiftLines(doc, seg.Line-1)
	d := &decoder{opts: opts, budget: b, tab: tab}
	o, e := d.document(Source{File: file, Doc: seg.Doc, Line: doc.Content[0].Line}, doc.Content[0])
	return o, e, nil
}

// converter returns the converter of an object of kind ki (nil: a kind kept loosely),
// recording the lines of its fields in lines.
func (d *decoder) converter(ki *schema.Kind, lines *lineIndex, tolerate func(path string) bool) *schema.Converter {
	w := looseWeight
	if ki != nil {
		w = typedWeight
	}
	return schema.NewConverter(ki, schema.Options{Budget: d.budget, Weight: w, Lines: lines, Intern: d.opts.intern, Tolerate: tolerate})
}

// headerLines are the lines of an object's apiVersion and kind, for an object of a kind
// that is not converted.
func (d *decoder) headerLines(h header) *lineIndex {
	l := yamldoc.NewLineIndex(d.tab)
	for _, f := range []struct {
		name string
		line int
	}{{"apiVersion", h.APIVersionLine}, {"kind", h.KindLine}} {
		if f.line > 0 {
			l.Add(d.tab.ID(yamldoc.PathStep{Parent: yamldoc.NoPath, Kind: yamldoc.StepChild, Name: f.name}, field.NewPath(f.name)), f.line)
		}
	}
	l.Done()
	return l
}

// decoder carries what one document's decoding needs besides the document.
type decoder struct {
	opts   Options
	budget *budget
	tab    *pathTable
}

// shiftLines makes segment-relative lines absolute. The parser builds a tree (an alias is
// a node of its own that points at its anchor), so each node is met once.
func shiftLines(n *yaml.Node, off int) {
	if n == nil {
		return
	}
	if n.Line > 0 {
		n.Line += off
	}
	for _, c := range n.Content {
		shiftLines(c, off)
	}
}

// internHeader makes the header's strings the Load's shared copies.
func internHeader(h *header, in *interner) {
	h.APIVersion, h.Kind, h.Namespace = in.Str(h.APIVersion), in.Str(h.Kind), in.Str(h.Namespace)
}

func isList(apiVersion, kind string) (elem *schema.Kind, ok bool) {
	if kind == "List" {
		return nil, true
	}
	base, found := strings.CutSuffix(kind, "List")
	if !found {
		return nil, false
	}
	ki, _ := schema.KindFor(apiVersion, base)
	if ki == nil && looseKind(apiVersion, base) {
		return nil, true // items carry their own apiVersion and kind
	}
	return ki, ki != nil
}

func (d *decoder) document(src Source, n *yaml.Node) ([]Object, []error) {
	n = yamldoc.Resolve(n)
	h := yamldoc.ReadHeader(n)
	internHeader(&h, d.opts.intern)
	base := Object{Source: src, APIVersion: h.APIVersion, Kind: h.Kind, Name: h.Name, Namespace: h.Namespace}
	if n.Kind != yaml.MappingNode {
		return nil, []error{base.errorAt("", n.Line, "a manifest document must be a mapping, got %s", schema.Describe(n))}
	}
	if notObject(n) {
		e := base.errorAt("", n.Line, "not a Kubernetes object: it has no apiVersion, kind or metadata")
		if d.opts.Strict {
			e.Msg += ": the tools do not check it"
			e.Strict = true
		} else {
			e.NotObject = true
		}
		return nil, []error{e}
	}
	if elem, ok := isList(h.APIVersion, h.Kind); ok && h.APIVersion != "" {
		return d.list(src, n, h, elem)
	}
	o, err := d.object(src, n, h, nil)
	if err != nil {
		return nil, err
	}
	return []Object{o}, nil
}

func (d *decoder) list(src Source, n *yaml.Node, h header, elem *schema.Kind) ([]Object, []error) {
	base := Object{Source: src, APIVersion: h.APIVersion, Kind: h.Kind}
	var items *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if yamldoc.Resolve(n.Content[i]).Value == "items" {
			items = yamldoc.Resolve(n.Content[i+1])
		}
	}
	if items == nil || (items.Kind == yaml.ScalarNode && items.ShortTag() == "!!null") {
		return nil, nil
	}
	if items.Kind != yaml.SequenceNode {
		return nil, []error{base.errorAt("items", items.Line, "expected a list, got %s", schema.Describe(items))}
	}
	var objs []Object
	var errs []error
	for i, it := range items.Content {
		it = yamldoc.Resolve(it)
		s := src
		s.Item, s.Line = i+1, it.Line
		ih := yamldoc.ReadHeader(it)
		internHeader(&ih, d.opts.intern)
		if it.Kind != yaml.MappingNode {
			b := Object{Source: s}
			errs = append(errs, b.errorAt("", it.Line, "a list item must be a mapping, got %s", schema.Describe(it)))
			continue
		}
		if _, nested := isList(ih.APIVersion, ih.Kind); nested && ih.APIVersion != "" {
			b := Object{Source: s, APIVersion: ih.APIVersion, Kind: ih.Kind}
			errs = append(errs, b.errorAt("", it.Line, "a List cannot hold another List"))
			continue
		}
		o, e := d.object(s, it, ih, elem)
		if e != nil {
			errs = append(errs, e...)
			continue
		}
		objs = append(objs, o)
	}
	return objs, errs
}

// decodeObject decodes one object; def supplies apiVersion and kind for items of typed
// lists, which may leave them out.
func (d *decoder) object(src Source, n *yaml.Node, h header, def *schema.Kind) (Object, []error) {
	if def != nil {
		if h.APIVersion == "" {
			h.APIVersion = def.GVK().GroupVersion().String()
		}
		if h.Kind == "" {
			h.Kind = def.GVK().Kind
		}
	}
	o := Object{Source: src, APIVersion: h.APIVersion, Kind: h.Kind, Name: h.Name, Namespace: h.Namespace}
	var errs []error
	if h.APIVersion == "" {
		errs = append(errs, o.errorAt("apiVersion", 0, "missing or not a string (every object needs apiVersion and kind)"))
	}
	if h.Kind == "" {
		errs = append(errs, o.errorAt("kind", 0, "missing or not a string (every object needs apiVersion and kind)"))
	}
	if errs != nil {
		return o, errs
	}
	ki, err := schema.KindFor(h.APIVersion, h.Kind)
	if err != nil {
		return o, []error{o.errorAt("apiVersion", 0, "%v", err)}
	}
	if ki == nil {
		o.lines = d.headerLines(h)
		if e := d.unknownKind(&o); e != nil {
			return o, []error{e}
		}
	}
	var tolerate func(path string) bool
	if d.opts.Tolerate != nil && ki != nil {
		tolerate = func(path string) bool { return d.opts.Tolerate(h.APIVersion, h.Kind, path) }
	}
	lines := yamldoc.NewLineIndex(d.tab)
	c := d.converter(ki, lines, tolerate)
	if ki != nil {
		return d.typedObject(o, n, h, ki, c, lines)
	}
	v, ok := c.Untyped(n)
	lines.Done()
	o.lines = lines
	for _, e := range c.Problems() {
		errs = append(errs, o.errorAt(e.Field, e.Line, "%s", e.Msg))
	}
	if !ok || errs != nil {
		if errs == nil {
			errs = append(errs, o.errorAt("", 0, "invalid document"))
		}
		return o, errs
	}
	m := v.(map[string]any)
	m["apiVersion"], m["kind"] = h.APIVersion, h.Kind
	o.Obj = &unstructured.Unstructured{Object: m}
	return o, nil
}
