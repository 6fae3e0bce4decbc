package edit

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// The merge: the rendered object's tree folded into the document's, each change turned
// into a text edit of the docEditor.

// The types whose values are written as a scalar of their own (resource.Quantity,
// metav1.Time, a json.Unmarshaler) rather than as their Go fields.
var (
	quantityType    = reflect.TypeOf(resource.Quantity{})
	timeType        = reflect.TypeOf(metav1.Time{})
	unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

func derefType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func childType(t reflect.Type, k string) reflect.Type {
	t = derefType(t)
	if t == nil || t == quantityType || t == timeType || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if ft, _, ok := schema.FieldOf(t, k); ok {
			return ft
		}
	case reflect.Map:
		return t.Elem()
	}
	return nil
}

func elemType(t reflect.Type) reflect.Type {
	t = derefType(t)
	if t != nil && t.Kind() == reflect.Slice {
		return t.Elem()
	}
	return nil
}

// scalarEqual reports whether two scalars mean the same for a field of type t, so that
// "16384Mi" is not rewritten as "16Gi" nor 0x10 as 16.
func scalarEqual(d, s *yaml.Node, t reflect.Type) bool {
	t = derefType(t)
	switch t {
	case quantityType:
		a, err1 := resource.ParseQuantity(strings.TrimSpace(d.Value))
		b, err2 := resource.ParseQuantity(strings.TrimSpace(s.Value))
		if err1 == nil && err2 == nil {
			return a.Cmp(b) == 0
		}
	case timeType:
		a, err1 := time.Parse(time.RFC3339, d.Value)
		b, err2 := time.Parse(time.RFC3339, s.Value)
		if err1 == nil && err2 == nil {
			return a.Equal(b)
		}
	}
	dt, st := d.ShortTag(), s.ShortTag()
	// A scalar under a tag of the file's own (!vault x) is read as its text, so its text
	// is what it is compared by; the tag stays.
	isText := func(tag string) bool {
		return tag == "!!str" || tag == "!!timestamp" || tag == "!!binary" || localTag(tag)
	}
	if isText(dt) && isText(st) {
		return d.Value == s.Value
	}
	if (dt == "!!str") != (st == "!!str") {
		// A field that reads both "4" and 4 (the loader accepted the file's form): the
		// same text means the same value, and the file's quoting stays.
		return d.Value == s.Value
	}
	if dt != st {
		if !(dt == "!!int" || dt == "!!float") || !(st == "!!int" || st == "!!float") {
			return false
		}
	}
	a, ok1 := schema.Scalar(d)
	b, ok2 := schema.Scalar(s)
	return ok1 && ok2 && schema.JSONEqual(a, b)
}

// localTag reports a tag of the file's own, not one of YAML's (!!str, !!int, ...).
func localTag(tag string) bool { return tag != "" && !strings.HasPrefix(tag, "!!") }

// setScalar gives d the value of s. A string keeps its quoting, and a tag of the file's
// own stays on a new string value (it was read as text, and is written back as text).
func setScalar(d, s *yaml.Node) {
	style := yaml.Style(0)
	tag := s.Tag
	dt := d.ShortTag()
	if (dt == "!!str" || localTag(dt)) && s.ShortTag() == "!!str" {
		style = d.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle)
		if localTag(dt) {
			tag, style = d.Tag, style|yaml.TaggedStyle
		}
	}
	d.Tag, d.Value, d.Style = tag, s.Value, style
}

// replaceNode turns d into a copy of s, keeping d's comments.
func replaceNode(d, s *yaml.Node) {
	hc, lc, fc := d.HeadComment, d.LineComment, d.FootComment
	*d = *s
	d.HeadComment, d.LineComment, d.FootComment = hc, lc, fc
}

// keepUnsourced decides whether a key the new object does not have stays in the file:
// fields the Go type does not know (partially typed kinds) and empty values that decode
// the same as an absent field.
func keepUnsourced(t reflect.Type, k string, v *yaml.Node) bool {
	t = derefType(t)
	if t == nil || t.Kind() != reflect.Struct || t == quantityType || t == timeType {
		return false
	}
	ft, omitEmpty, known := schema.FieldOf(t, k)
	if !known {
		return true
	}
	v = yamldoc.Resolve(v)
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return true
	}
	if ft.Kind() == reflect.Pointer {
		return false // a nil pointer is a deliberate "unset"
	}
	switch {
	case v.Kind == yaml.MappingNode && len(v.Content) == 0:
		return ft.Kind() == reflect.Struct || ft.Kind() == reflect.Map
	case v.Kind == yaml.SequenceNode && len(v.Content) == 0:
		return ft.Kind() == reflect.Slice
	case v.Kind == yaml.ScalarNode && omitEmpty:
		x, ok := schema.Scalar(v)
		return ok && schema.IsZero(x) && sameKind(x, ft)
	}
	return false
}

// untypedInside reports whether mapping v holds a key that the struct type t does not
// know, itself or in a field of a (non-pointer) struct type, at any depth.
func untypedInside(t reflect.Type, v *yaml.Node) bool {
	v = yamldoc.Resolve(v)
	if t == nil || t.Kind() != reflect.Struct || t == quantityType || t == timeType ||
		reflect.PointerTo(t).Implements(unmarshalerType) || v == nil || v.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		ft, _, known := schema.FieldOf(t, v.Content[i].Value)
		if !known || untypedInside(ft, v.Content[i+1]) {
			return true
		}
	}
	return false
}

func sameKind(x any, t reflect.Type) bool {
	switch x.(type) {
	case string:
		return t.Kind() == reflect.String
	case bool:
		return t.Kind() == reflect.Bool
	case int64, float64:
		return t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64
	}
	return false
}

func (e *docEditor) merge(d, s *yaml.Node, t reflect.Type, tg *target, flow bool) {
	t = derefType(t)
	if d.Kind == yaml.ScalarNode && s.Kind == yaml.ScalarNode {
		if scalarEqual(d, s, t) {
			return
		}
		setScalar(d, s)
		e.scalarEdit(d, tg, flow)
		return
	}
	if d.Kind != s.Kind {
		replaceNode(d, s)
		e.escalate(tg)
		return
	}
	switch d.Kind {
	case yaml.MappingNode:
		e.mergeMapping(d, s, t, tg, flow)
	case yaml.SequenceNode:
		e.mergeSequence(d, s, t, tg, flow)
	}
}

func (e *docEditor) mergeMapping(d, s *yaml.Node, t reflect.Type, tg *target, flow bool) {
	isFlow := flow || d.Style&yaml.FlowStyle != 0
	src := map[string]int{}
	for j := 0; j+1 < len(s.Content); j += 2 {
		src[s.Content[j].Value] = j
	}
	orig := append([]*yaml.Node(nil), d.Content...)
	used := map[string]bool{}
	var out []*yaml.Node
	for i := 0; i+1 < len(orig); i += 2 {
		k, v := orig[i], orig[i+1]
		if j, ok := src[k.Value]; ok && !used[k.Value] {
			used[k.Value] = true
			ct := tg
			if !isFlow {
				if et := e.entryTarget(d, k); et != nil {
					ct = et
				}
			}
			e.merge(v, s.Content[j+1], childType(t, k.Value), ct, isFlow)
			out = append(out, k, v)
			continue
		}
		if keepUnsourced(t, k.Value, v) {
			used[k.Value] = true
			out = append(out, k, v)
			continue
		}
		if ft := childType(t, k.Value); ft != nil && ft.Kind() == reflect.Struct && v.Kind == yaml.MappingNode && untypedInside(ft, v) {
			// A struct field whose zero value renders as nothing, holding fields the Go
			// type does not know (partially typed kinds): remove the known ones, keep the
			// others, rather than lose them with the whole block.
			used[k.Value] = true
			ct := tg
			if !isFlow {
				if et := e.entryTarget(d, k); et != nil {
					ct = et
				}
			}
			e.merge(v, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, ft, ct, isFlow)
			out = append(out, k, v)
			continue
		}
		if et := e.entryTarget(d, k); et != nil && !isFlow {
			e.deleteTarget(et)
		} else {
			e.escalate(tg)
		}
	}
	var added []*yaml.Node
	for j := 0; j+1 < len(s.Content); j += 2 {
		if !used[s.Content[j].Value] {
			used[s.Content[j].Value] = true
			added = append(added, s.Content[j], s.Content[j+1])
		}
	}
	if len(added) > 0 {
		var last *target
		if !isFlow && len(orig) > 0 {
			last = e.entryRange(d, orig[len(orig)-2])
		}
		if last == nil {
			e.escalate(tg)
		} else {
			em := &emitter{st: e.st}
			em.mappingBody(&yaml.Node{Kind: yaml.MappingNode, Content: added}, last.col)
			e.insertAfter(last, em.b.String())
		}
	}
	out = append(out, added...)
	if len(out) == 0 && len(orig) > 0 {
		e.escalate(tg) // an emptied block mapping must become "{}"
	}
	d.Content = out
}

func (e *docEditor) mergeSequence(d, s *yaml.Node, t reflect.Type, tg *target, flow bool) {
	isFlow := flow || d.Style&yaml.FlowStyle != 0
	elem := elemType(t)
	orig := append([]*yaml.Node(nil), d.Content...)
	m := matchItems(orig, s.Content)
	pairs, result, added, removed, reorder := m.pairs, m.result, m.added, m.removed, m.reorder
	for _, p := range pairs {
		ct := tg
		if !isFlow && !reorder {
			if it := e.itemTarget(d, p.d); it != nil {
				ct = it
			}
		}
		e.merge(p.d, p.s, elem, ct, isFlow)
	}
	switch {
	case reorder || (isFlow && len(added)+len(removed) > 0) || (len(result) == 0 && len(orig) > 0):
		e.escalate(tg)
	default:
		for _, r := range removed {
			if it := e.itemTarget(d, r); it != nil {
				e.deleteTarget(it)
			} else {
				e.escalate(tg)
			}
		}
		if len(added) > 0 {
			var last *target
			if len(orig) > 0 {
				last = e.itemTarget(d, orig[len(orig)-1])
			}
			if last == nil {
				e.escalate(tg)
			} else {
				em := &emitter{st: e.st}
				em.seqBody(&yaml.Node{Kind: yaml.SequenceNode, Content: added}, last.col)
				e.insertAfter(last, em.b.String())
			}
		}
	}
	d.Content = result
}
