package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

var marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

// objectNode renders an object as a node tree: struct fields in declaration order,
// apiVersion, kind, metadata and spec first, and none of the noise encoding/json writes
// for unset fields (status: {}, creationTimestamp: null, empty structs, nil pointers).
// It also returns the Go type the tree was checked against (nil for unstructured).
func objectNode(obj runtime.Object) (*yaml.Node, reflect.Type, error) {
	if obj == nil {
		return nil, nil, fmt.Errorf("no object")
	}
	var n *yaml.Node
	var t reflect.Type
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		var err error
		if n, err = valueNode(reflect.ValueOf(o.Object), true); err != nil {
			return nil, nil, err
		}
	default:
		v := reflect.ValueOf(obj)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return nil, nil, fmt.Errorf("cannot render %T", obj)
		}
		t = v.Elem().Type()
		var err error
		if n, err = valueNode(v.Elem(), false); err != nil {
			return nil, nil, err
		}
		if n == nil {
			n = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
		// Objects built in code often leave TypeMeta empty.
		if ki := kindOfObject(obj); ki != nil {
			setKey(n, "apiVersion", ki.gvk.GroupVersion().String(), true)
			setKey(n, "kind", ki.gvk.Kind, true)
		} else if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind == "" || gvk.Version == "" {
			return nil, nil, fmt.Errorf("%T has no apiVersion and kind set", obj)
		}
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("object does not render as a mapping")
	}
	reorderTop(n)
	return n, t, nil
}

// setKey sets a string key of a mapping, adding it if missing (onlyIfEmpty: keep a
// non-empty value).
func setKey(n *yaml.Node, k, v string, onlyIfEmpty bool) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			if !onlyIfEmpty || n.Content[i+1].Value == "" {
				n.Content[i+1] = strNode(v)
			}
			return
		}
	}
	n.Content = append(n.Content, strNode(k), strNode(v))
}

func reorderTop(n *yaml.Node) {
	rank := map[string]int{"apiVersion": 0, "kind": 1, "metadata": 2, "spec": 3}
	type pair struct{ k, v *yaml.Node }
	pairs := make([]pair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		pairs = append(pairs, pair{n.Content[i], n.Content[i+1]})
	}
	r := func(p pair) int {
		if x, ok := rank[p.k.Value]; ok {
			return x
		}
		return len(rank)
	}
	sort.SliceStable(pairs, func(i, j int) bool { return r(pairs[i]) < r(pairs[j]) })
	n.Content = n.Content[:0]
	for _, p := range pairs {
		n.Content = append(n.Content, p.k, p.v)
	}
}

func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// valueNode renders a Go value; nil means "leave the field out". keepNull keeps explicit
// nulls (unstructured data, where null is a value of its own).
func valueNode(v reflect.Value, keepNull bool) (*yaml.Node, error) {
	if !v.IsValid() {
		if keepNull {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
		}
		return nil, nil
	}
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return valueNode(reflect.Value{}, keepNull)
		}
		return valueNode(v.Elem(), keepNull)
	}
	t := v.Type()
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		p := reflect.New(t)
		p.Elem().Set(v)
		data, err := p.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return nil, err
		}
		n, err := jsonNode(data)
		if err != nil || n == nil || (n.ShortTag() == "!!null" && !keepNull) {
			return nil, err
		}
		return n, nil
	}
	switch v.Kind() {
	case reflect.Struct:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, f := range structFields(t).fields {
			fv, ok := fieldByIndex(v, f.index)
			if !ok || (f.omitEmpty && (isEmptyValue(fv) || (fv.Kind() == reflect.Struct && fv.IsZero()))) {
				continue
			}
			c, err := valueNode(fv, false)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			if c == nil {
				continue
			}
			n.Content = append(n.Content, strNode(f.name), c)
		}
		return n, nil
	case reflect.Map:
		if v.IsNil() {
			return valueNode(reflect.Value{}, keepNull)
		}
		keys := v.MapKeys()
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = mapKeyString(k)
		}
		sort.Sort(byName{keys, names})
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i, k := range keys {
			c, err := valueNode(v.MapIndex(k), keepNull)
			if err != nil {
				return nil, err
			}
			if c == nil {
				continue
			}
			n.Content = append(n.Content, strNode(names[i]), c)
		}
		return n, nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return valueNode(reflect.Value{}, keepNull)
		}
		if t.Elem().Kind() == reflect.Uint8 {
			data, _ := json.Marshal(v.Interface())
			return jsonNode(data)
		}
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i := 0; i < v.Len(); i++ {
			c, err := valueNode(v.Index(i), true)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	case reflect.String:
		return strNode(v.String()), nil
	case reflect.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Bool())}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(v.Uint(), 10)}, nil
	case reflect.Float32, reflect.Float64:
		data, err := json.Marshal(v.Interface())
		if err != nil {
			return nil, err
		}
		return jsonNode(data)
	}
	return nil, fmt.Errorf("cannot render %s", t)
}

func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// isEmptyValue is encoding/json's omitempty test.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// jsonNode parses JSON into nodes, keeping key order, with styles and positions cleared.
func jsonNode(data []byte) (*yaml.Node, error) {
	if s, ok := plainJSONString(data); ok {
		// Quantities and times: what the parse below gives, for a fraction of its cost.
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	n := doc.Content[0]
	var clear func(*yaml.Node)
	clear = func(n *yaml.Node) {
		n.Style, n.Line, n.Column = 0, 0, 0
		n.Tag = n.ShortTag()
		for _, c := range n.Content {
			clear(c)
		}
	}
	clear(n)
	return n, nil
}

// style is how a file writes YAML, so that new lines look like their neighbours.
type style struct {
	indent    int  // spaces per nesting level
	seqIndent bool // "key:\n  - a" (true) or "key:\n- a" (false)
	json      bool // the document is JSON
	crlf      bool
}

var defaultStyle = style{indent: 2, seqIndent: true}

// detectStyle guesses the indentation of a parsed document; ok is false when the
// document says nothing about it.
func detectStyle(root *yaml.Node) (st style, ok bool) {
	st = defaultStyle
	var foundIndent, foundSeq bool
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || (foundIndent && foundSeq) {
			return
		}
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				switch {
				case v.Kind == yaml.MappingNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 && !foundIndent:
					if d := v.Content[0].Column - k.Column; d > 0 && v.Content[0].Line > k.Line {
						st.indent, foundIndent = d, true
					}
				case v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 && !foundSeq:
					// The item starts two columns after its dash.
					if it := v.Content[0]; it.Line > k.Line {
						st.seqIndent, foundSeq = it.Column-2 > k.Column, true
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	if root != nil && root.Kind == yaml.MappingNode && root.Style&yaml.FlowStyle != 0 {
		st.json, ok = true, true
	}
	return st, ok || foundIndent || foundSeq
}

// emitter writes nodes as block YAML (or JSON) in a given style. It exists because
// yaml.v3's encoder re-indents lists and cannot write at a given column.
type emitter struct {
	b  strings.Builder
	st style
	// allowed, when set, limits the comment lines written to these (trimmed) ones: when
	// re-rendering part of a file, comments of the lines around it must not be repeated.
	allowed map[string]bool
}

func (e *emitter) pad(col int) { e.b.WriteString(strings.Repeat(" ", col)) }

func (e *emitter) comment(text string, col int) {
	if text == "" || e.st.json {
		return
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "" && e.allowed == nil:
			e.b.WriteString("\n")
		case t == "" || (e.allowed != nil && !e.allowed[t]):
		default:
			e.pad(col)
			e.b.WriteString(t + "\n")
		}
	}
}

func lineComment(ns ...*yaml.Node) string {
	for _, n := range ns {
		if n != nil && n.LineComment != "" {
			return " " + strings.TrimSpace(n.LineComment)
		}
	}
	return ""
}

func isBlock(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0
}

// document writes a whole document.
func (e *emitter) document(doc *yaml.Node) string {
	root := doc
	if doc.Kind == yaml.DocumentNode {
		e.comment(doc.HeadComment, 0)
		root = doc.Content[0]
	}
	if e.st.json {
		e.jsonValue(root, 0)
		e.b.WriteString("\n")
		return e.b.String()
	}
	switch {
	case root.Kind == yaml.MappingNode && isBlock(root):
		e.mappingBody(root, 0)
	case root.Kind == yaml.SequenceNode && isBlock(root):
		e.seqBody(root, 0)
	default:
		e.b.WriteString(e.inline(root, false) + "\n")
	}
	if doc.Kind == yaml.DocumentNode {
		e.comment(doc.FootComment, 0)
	}
	return e.b.String()
}

func (e *emitter) mappingBody(n *yaml.Node, col int) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		e.comment(k.HeadComment, col)
		e.pad(col)
		e.b.WriteString(e.scalar(k, false, true) + ":")
		e.value(k, v, col)
		e.comment(k.FootComment, col)
	}
}

// value writes what follows "key:" or "-".
func (e *emitter) value(k, v *yaml.Node, col int) {
	switch {
	case v.Kind == yaml.MappingNode && isBlock(v):
		e.b.WriteString(lineComment(k, v) + "\n")
		e.mappingBody(v, col+e.st.indent)
		e.comment(v.FootComment, col+e.st.indent)
	case v.Kind == yaml.SequenceNode && isBlock(v):
		e.b.WriteString(lineComment(k, v) + "\n")
		c := col
		if e.st.seqIndent {
			c += e.st.indent
		}
		e.seqBody(v, c)
		e.comment(v.FootComment, c)
	case v.Kind == yaml.ScalarNode && e.literal(v):
		e.b.WriteString(" " + blockHeader(v.Value) + lineComment(k, v) + "\n")
		body := strings.TrimRight(v.Value, "\n")
		for _, l := range strings.Split(body, "\n") {
			if l != "" {
				e.pad(col + e.st.indent)
				e.b.WriteString(l)
			}
			e.b.WriteString("\n")
		}
		if trailing := len(v.Value) - len(body); trailing > 1 {
			e.b.WriteString(strings.Repeat("\n", trailing-1)) // kept by "|+"
		}
	default:
		e.b.WriteString(" " + e.inline(v, false) + lineComment(k, v) + "\n")
	}
}

func (e *emitter) seqBody(n *yaml.Node, col int) {
	for _, it := range n.Content {
		e.comment(it.HeadComment, col)
		if !isBlock(it) {
			e.pad(col)
			e.b.WriteString("-")
			e.value(it, it, col)
			e.comment(it.FootComment, col)
			continue
		}
		// Write the item at col+2, then put the dash in front of its first line; the
		// first entry's comment goes above the dash.
		first := it.Content[0]
		e.comment(first.HeadComment, col)
		saved := first.HeadComment
		first.HeadComment = ""
		sub := &emitter{st: e.st, allowed: e.allowed}
		if it.Kind == yaml.MappingNode {
			sub.mappingBody(it, col+2)
		} else {
			sub.seqBody(it, col+2)
		}
		first.HeadComment = saved
		s := sub.b.String()
		e.pad(col)
		if prefix := strings.Repeat(" ", col+2); strings.HasPrefix(s, prefix) && len(s) > col+2 && s[col+2] != ' ' && s[col+2] != '#' {
			e.b.WriteString("- " + s[col+2:])
		} else {
			e.b.WriteString("-" + lineComment(it) + "\n" + s)
		}
		e.comment(it.FootComment, col)
	}
}

// inline writes a scalar, an alias or a flow collection on one line.
func (e *emitter) inline(n *yaml.Node, flow bool) string {
	switch n.Kind {
	case yaml.AliasNode:
		return "*" + n.Value
	case yaml.MappingNode:
		parts := make([]string, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, e.scalar(n.Content[i], true, true)+": "+e.inline(n.Content[i+1], true))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case yaml.SequenceNode:
		parts := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			parts = append(parts, e.inline(c, true))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return e.scalar(n, flow, false)
}

// literal reports whether a string is best written as a "|" block.
func (e *emitter) literal(n *yaml.Node) bool {
	if n.ShortTag() != "!!str" || !strings.Contains(strings.TrimRight(n.Value, "\n"), "\n") {
		return false
	}
	v := n.Value
	if strings.HasPrefix(v, " ") || strings.HasPrefix(v, "\n") || strings.Contains(v, "\r") || !printable(v, true) {
		return false
	}
	for _, l := range strings.Split(v, "\n") {
		if strings.TrimRight(l, " \t") != l {
			return false // trailing blanks would be invisible and easily lost
		}
	}
	return true
}

func blockHeader(v string) string {
	switch {
	case strings.HasSuffix(v, "\n\n"):
		return "|+"
	case strings.HasSuffix(v, "\n"):
		return "|"
	}
	return "|-"
}

// scalar writes a scalar on one line, keeping its quoting style where that is safe. An
// explicit tag (!!str 2, !vault "x") is kept in front of the value, written as it was.
func (e *emitter) scalar(n *yaml.Node, flow, isKey bool) string {
	if e.st.json {
		return jsonScalar(n)
	}
	if n.Style&yaml.TaggedStyle != 0 && n.Tag != "" {
		return n.Tag + " " + e.scalarText(n, flow || isKey, true)
	}
	return e.scalarText(n, flow || isKey, false)
}

// scalarText is a scalar's value as written; tagged, the tag says what the text means,
// so "2" or "true" may stay plain.
func (e *emitter) scalarText(n *yaml.Node, flow, tagged bool) string {
	tag := n.ShortTag()
	v := n.Value
	quoted := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0
	if tag != "!!str" && !localTag(tag) && !(tagged && quoted) {
		if tag == "!!null" && v == "" {
			return "null"
		}
		return v // numbers, booleans, timestamps and the like keep their text
	}
	switch {
	case n.Style&yaml.SingleQuotedStyle != 0 && !strings.ContainsAny(v, "\n\r") && printable(v, false):
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case n.Style&yaml.DoubleQuotedStyle != 0:
		return doubleQuoted(v)
	case plainSafe(v, flow), tagged && plainShape(v, flow):
		return v
	}
	return doubleQuoted(v)
}

func doubleQuoted(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func jsonScalar(n *yaml.Node) string {
	c := newConverter(false)
	v, ok := c.scalar(n, nil)
	if !ok {
		return doubleQuoted(n.Value)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func (e *emitter) jsonValue(n *yaml.Node, col int) {
	n = yamldoc.Resolve(n)
	ind := e.st.indent
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			e.b.WriteString("{}")
			return
		}
		e.b.WriteString("{\n")
		for i := 0; i+1 < len(n.Content); i += 2 {
			e.pad(col + ind)
			e.b.WriteString(doubleQuoted(n.Content[i].Value) + ": ")
			e.jsonValue(n.Content[i+1], col+ind)
			if i+2 < len(n.Content) {
				e.b.WriteString(",")
			}
			e.b.WriteString("\n")
		}
		e.pad(col)
		e.b.WriteString("}")
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			e.b.WriteString("[]")
			return
		}
		e.b.WriteString("[\n")
		for i, c := range n.Content {
			e.pad(col + ind)
			e.jsonValue(c, col+ind)
			if i+1 < len(n.Content) {
				e.b.WriteString(",")
			}
			e.b.WriteString("\n")
		}
		e.pad(col)
		e.b.WriteString("]")
	default:
		e.b.WriteString(jsonScalar(n))
	}
}

func printable(s string, allowNewline bool) bool {
	for _, r := range s {
		if r == '\n' && allowNewline || r == '\t' {
			continue
		}
		if !unicode.IsPrint(r) || r == '\ufeff' {
			return false
		}
	}
	return true
}

var (
	// Plain scalars that some YAML reader (1.1 or 1.2) would not take as a string.
	yaml11Bool = regexp.MustCompile(`^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yamlNull   = regexp.MustCompile(`^(~|null|Null|NULL)$`)
	yamlNumber = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$|^[-+]?0[xX][0-9a-fA-F_]+$|^[-+]?0[oO]?[0-7_]+$|^[-+]?0[bB][01_]+$|^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$`)
	yamlTime   = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}`)
)

// plainSafe reports whether s can be written unquoted and read back as the same string
// by YAML 1.1 and 1.2 readers alike.
func plainSafe(s string, flow bool) bool {
	if s == "" || yaml11Bool.MatchString(s) || yamlNull.MatchString(s) || yamlNumber.MatchString(s) || yamlTime.MatchString(s) || s == "=" || s == "<<" {
		return false
	}
	return plainShape(s, flow)
}

// plainShape reports whether s reads back unquoted as one plain scalar with the same
// text, whatever type a reader would then resolve it to.
func plainShape(s string, flow bool) bool {
	if s == "" || !printable(s, false) || strings.ContainsAny(s, "\t") {
		return false
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(s[0])) {
		// "-x" style values are fine when the dash is not an indicator.
		if !(s[0] == '-' && len(s) > 1 && s[1] != ' ' && !strings.HasPrefix(s, "---")) {
			return false
		}
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' || strings.HasSuffix(s, ":") {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return false
	}
	if flow && strings.ContainsAny(s, ",[]{}") {
		return false
	}
	return true
}

// plainJSONString returns the text of a JSON string of printable ASCII with nothing
// escaped in it, which reads the same as YAML.
func plainJSONString(data []byte) (string, bool) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return "", false
	}
	for _, b := range data[1 : len(data)-1] {
		if b == '\\' || b == '"' || b < 0x20 || b >= 0x7f {
			return "", false
		}
	}
	return string(data[1 : len(data)-1]), true
}

// mapKeyString renders a map key as fmt.Sprint does, without its cost for strings.
func mapKeyString(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return k.String()
	}
	return fmt.Sprint(k.Interface())
}

// byName sorts map keys by their rendered names.
type byName struct {
	keys  []reflect.Value
	names []string
}

func (b byName) Len() int           { return len(b.keys) }
func (b byName) Less(i, j int) bool { return b.names[i] < b.names[j] }
func (b byName) Swap(i, j int) {
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
	b.names[i], b.names[j] = b.names[j], b.names[i]
}
