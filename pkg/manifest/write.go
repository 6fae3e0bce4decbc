package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Change is one edit of a manifest file.
//
//   - Source set, Delete false: the document (or List item) at Source becomes Obj. Obj is
//     merged into the existing text: changed values are replaced where they stand, new
//     keys go to the end of their mapping, keys Obj no longer has are removed, and lists
//     of mappings with a name key are matched by name. Comments, key order, quoting and
//     the other documents stay as they are.
//   - Source set, Delete true: the document (or List item) is removed. Obj, if set, must
//     still match what is there.
//   - Source nil: Obj is appended to File as a new document (the file and its directory
//     are created when missing).
//
// The document at Source must still hold an object of the same kind and name, so that
// edits are never applied to a file that changed since it was read.
type Change struct {
	Source *Source
	File   string
	Obj    runtime.Object
	Delete bool
}

// Write applies changes. Every file is rendered in memory first and any error leaves all
// files untouched; then each changed file is replaced atomically (a temporary file in the
// same directory, renamed over it, keeping its mode). Should a rename fail, the files
// already replaced are put back.
func Write(changes []Change) error {
	plan, err := plan(changes)
	if err != nil {
		return err
	}
	return commit(plan)
}

type fileChange struct {
	index  int // position of the change in the caller's slice, for messages
	change Change
}

type filePlan struct {
	path    string // as given by the first change naming it
	real    string // the file written (symlinks resolved)
	orig    []byte
	exists  bool
	mode    fs.FileMode
	changes []fileChange
	out     []byte
}

func plan(changes []Change) ([]*filePlan, error) {
	byPath := map[string]*filePlan{}
	var order []*filePlan
	for i, c := range changes {
		path := c.File
		if c.Source != nil {
			path = c.Source.File
		}
		switch {
		case path == Stdin:
			return nil, fmt.Errorf("change %d: %s was read from standard input and cannot be written back", i+1, describeChange(c))
		case path == "":
			return nil, fmt.Errorf("change %d: no file to write %s to", i+1, describeChange(c))
		case c.Source == nil && c.Delete:
			return nil, fmt.Errorf("change %d: a deletion needs the Source of the document", i+1)
		case !c.Delete && c.Obj == nil:
			return nil, fmt.Errorf("change %d: no object to write to %s", i+1, path)
		}
		real, err := realPath(path)
		if err != nil {
			return nil, fmt.Errorf("change %d: %w", i+1, err)
		}
		p := byPath[real]
		if p == nil {
			p = &filePlan{path: path, real: real, mode: 0o644}
			if st, err := os.Stat(real); err == nil {
				if !st.Mode().IsRegular() {
					return nil, fmt.Errorf("%s is not a regular file", path)
				}
				p.exists, p.mode = true, st.Mode().Perm()
				if p.orig, err = os.ReadFile(real); err != nil {
					return nil, err
				}
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			byPath[real] = p
			order = append(order, p)
		}
		p.changes = append(p.changes, fileChange{index: i, change: c})
	}
	for _, p := range order {
		out, err := p.render()
		if err != nil {
			return nil, err
		}
		p.out = out
	}
	return order, nil
}

func describeChange(c Change) string {
	if c.Obj == nil {
		if c.Source != nil {
			return c.Source.String()
		}
		return "the object"
	}
	k, n := identity(c.Obj)
	return fmt.Sprintf("%s %q", k.Kind, n)
}

// identity is an object's kind and namespace/name.
func identity(o runtime.Object) (schema.GroupVersionKind, string) {
	gvk := o.GetObjectKind().GroupVersionKind()
	if ki := kindOfObject(o); ki != nil {
		gvk = ki.gvk
	}
	name := ""
	if m, err := meta.Accessor(o); err == nil {
		name = qualified(m.GetNamespace(), m.GetName())
	}
	return gvk, name
}

// realPath resolves symlinks so that a link keeps pointing at the file it names.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(r, filepath.Base(abs)), nil
	}
	return abs, nil
}

func (p *filePlan) render() ([]byte, error) {
	text := string(p.orig)
	segs := splitDocuments(text)
	byDoc := map[int]int{}
	for i, s := range segs {
		if s.doc >= 0 {
			byDoc[s.doc] = i
		}
	}
	type docChanges struct {
		whole *fileChange
		items []fileChange
	}
	perSeg := map[int]*docChanges{}
	var appends []fileChange
	for _, fc := range p.changes {
		c := fc.change
		if c.Source == nil {
			appends = append(appends, fc)
			continue
		}
		si, ok := byDoc[c.Source.Doc]
		if !ok || !p.exists {
			return nil, fmt.Errorf("%s: no such document (the file changed since it was read)", c.Source)
		}
		dc := perSeg[si]
		if dc == nil {
			dc = &docChanges{}
			perSeg[si] = dc
		}
		if c.Source.Item == 0 {
			if dc.whole != nil || len(dc.items) > 0 {
				return nil, fmt.Errorf("%s: more than one change to the same document", c.Source)
			}
			f := fc
			dc.whole = &f
			continue
		}
		if dc.whole != nil {
			return nil, fmt.Errorf("%s: more than one change to the same document", c.Source)
		}
		for _, o := range dc.items {
			if o.change.Source.Item == c.Source.Item {
				return nil, fmt.Errorf("%s: more than one change to the same item", c.Source)
			}
		}
		dc.items = append(dc.items, fc)
	}
	for si, dc := range perSeg {
		seg := segs[si]
		if dc.whole != nil {
			c := dc.whole.change
			out, err := editDocument(seg, 0, c.Obj, c.Delete)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.Source, err)
			}
			segs[si].text = out
			continue
		}
		// Edits of List items: replacements first, then deletions from the last item, so
		// that item positions stay valid.
		sort.SliceStable(dc.items, func(i, j int) bool {
			a, b := dc.items[i].change, dc.items[j].change
			if a.Delete != b.Delete {
				return !a.Delete
			}
			return a.Delete && a.Source.Item > b.Source.Item
		})
		for _, fc := range dc.items {
			c := fc.change
			out, err := editDocument(seg, c.Source.Item, c.Obj, c.Delete)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.Source, err)
			}
			seg.text = out
		}
		segs[si].text = seg.text
	}
	var b strings.Builder
	for i, s := range segs {
		b.WriteString(s.text)
		if i+1 < len(segs) && s.text != "" && !strings.HasSuffix(s.text, "\n") {
			b.WriteString("\n")
		}
	}
	out := b.String()
	if len(appends) > 0 {
		var err error
		if out, err = p.appendDocs(out, appends); err != nil {
			return nil, err
		}
	}
	return []byte(out), nil
}

func (p *filePlan) appendDocs(text string, appends []fileChange) (string, error) {
	isJSON := strings.EqualFold(filepath.Ext(p.path), ".json")
	segs := splitDocuments(text)
	hasDocs := false
	for _, s := range segs {
		if s.doc >= 0 && hasContent(s.text) {
			hasDocs = true
		}
	}
	if isJSON && (hasDocs || len(appends) > 1) {
		return "", fmt.Errorf("%s: a JSON file holds one document; cannot add another", p.path)
	}
	st := defaultStyle
	for _, s := range segs {
		if doc, _, _, err := parseSegment(s); err == nil && doc != nil {
			if found, ok := detectStyle(doc.Content[0]); ok && !found.json {
				st = found
				break
			}
		}
	}
	st.json = isJSON
	crlf := strings.Contains(text, "\r\n")
	for _, fc := range appends {
		doc, err := renderNew(fc.change.Obj, st)
		if err != nil {
			return "", fmt.Errorf("%s: %s: %w", p.path, describeChange(fc.change), err)
		}
		if crlf {
			doc = strings.ReplaceAll(doc, "\n", "\r\n")
		}
		nl := "\n"
		if crlf {
			nl = "\r\n"
		}
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += nl
		}
		last := ""
		if ls := splitLines(text); len(ls) > 0 {
			last = strings.TrimSpace(ls[len(ls)-1])
		}
		if hasDocs && last != "---" {
			text += "---" + nl
		}
		text += doc
		hasDocs = true
	}
	return text, nil
}

// renderNew renders an object as a new document and checks that it reads back.
func renderNew(obj runtime.Object, st style) (string, error) {
	n, _, err := objectNode(obj)
	if err != nil {
		return "", err
	}
	em := &emitter{st: st}
	text := em.document(n)
	if err := verify(text, n); err != nil {
		return "", err
	}
	return text, nil
}

// verify parses text and checks that it holds the same data as the node tree.
func verify(text string, want *yaml.Node) error {
	doc, _, msg, err := parseSegment(segment{text: text, line: 1})
	if err != nil {
		return fmt.Errorf("internal error: the rendered YAML does not parse: %s", msg)
	}
	if doc == nil {
		return fmt.Errorf("internal error: the rendered document is empty")
	}
	got, ok1 := newConverter(false).untyped(resolve(doc.Content[0]), nil, 0)
	exp, ok2 := newConverter(false).untyped(resolve(want), nil, 0)
	if !ok1 || !ok2 || !reflect.DeepEqual(got, exp) {
		return fmt.Errorf("internal error: the rendered YAML does not read back as written")
	}
	return nil
}

// editDocument returns the new text of a segment after merging obj into the document (or
// List item), or after deleting it.
func editDocument(seg segment, item int, obj runtime.Object, del bool) (string, error) {
	doc, _, msg, err := parseSegment(seg)
	if err != nil {
		return "", fmt.Errorf("the document no longer parses (%s)", msg)
	}
	if doc == nil {
		if del && item == 0 {
			return "", nil
		}
		return "", fmt.Errorf("the document is empty (the file changed since it was read)")
	}
	if del && item == 0 {
		if err := checkIdentity(readHeader(doc.Content[0]), obj); err != nil {
			return "", err
		}
		return "", nil
	}
	whole := false
	if hasAliases(doc.Content[0]) {
		x, err := expand(doc.Content[0], 0)
		if err != nil {
			return "", err
		}
		doc.Content[0], whole = x, true
	}
	root := resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return "", fmt.Errorf("the document is not a mapping")
	}
	node, items, itemsKey := root, (*yaml.Node)(nil), (*yaml.Node)(nil)
	if item > 0 {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "items" {
				itemsKey, items = root.Content[i], root.Content[i+1]
			}
		}
		if items == nil || items.Kind != yaml.SequenceNode || item > len(items.Content) {
			return "", fmt.Errorf("no item %d (the file changed since it was read)", item)
		}
		node = items.Content[item-1]
	}
	h := readHeader(node)
	if item > 0 {
		// Items of typed lists may leave apiVersion and kind to the list.
		rh := readHeader(root)
		if h.apiVersion == "" {
			h.apiVersion = rh.apiVersion
		}
		if h.kind == "" {
			h.kind = strings.TrimSuffix(rh.kind, "List")
		}
	}
	if err := checkIdentity(h, obj); err != nil {
		return "", err
	}
	e := newDocEditor(seg.text, doc)
	e.whole = e.whole || whole
	if del {
		if t := e.itemTarget(items, node); t != nil {
			e.deleteTarget(t)
		} else {
			e.whole = true
		}
		items.Content = append(items.Content[:item-1:item-1], items.Content[item:]...)
		if len(items.Content) == 0 {
			e.escalate(e.entryTarget(root, itemsKey)) // "items:" alone would read as null
		}
	} else {
		src, typ, err := objectNode(obj)
		if err != nil {
			return "", err
		}
		var tg *target
		if item > 0 {
			tg = e.itemTarget(items, node)
			// Items of typed lists may leave apiVersion and kind to the list.
			h := readHeader(node)
			for _, k := range []string{"apiVersion", "kind"} {
				if (k == "apiVersion" && h.apiVersion == "") || (k == "kind" && h.kind == "") {
					removeKey(src, k)
				}
			}
		}
		e.merge(node, src, typ, tg, false)
	}
	if !e.whole {
		if out, ok := e.apply(); ok && verify(out, root) == nil {
			return out, nil
		}
	}
	out := e.renderWhole(seg, doc)
	if err := verify(out, root); err != nil {
		return "", err
	}
	return out, nil
}

func removeKey(m *yaml.Node, k string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
			return
		}
	}
}

// renderWhole re-renders a document, keeping its "---" line.
func (e *docEditor) renderWhole(seg segment, doc *yaml.Node) string {
	var b strings.Builder
	first := 1
	if seg.sep && len(e.lines) > 0 {
		l := strings.TrimPrefix(e.lineText(1), "\ufeff")
		if rest := strings.TrimSpace(l[3:]); rest == "" || strings.HasPrefix(rest, "#") {
			b.WriteString(l + "\n")
		} else {
			b.WriteString("---\n")
		}
		first = 2
	}
	em := &emitter{st: e.st, allowed: e.commentSet(first, len(e.lines))}
	b.WriteString(em.document(doc))
	return e.nl(b.String())
}

// checkIdentity makes sure the document still holds the object being written.
func checkIdentity(h header, obj runtime.Object) error {
	if obj == nil {
		return nil
	}
	gvk, name := identity(obj)
	hgv, _ := schema.ParseGroupVersion(h.apiVersion)
	hname := qualified(h.namespace, h.name)
	m, err := meta.Accessor(obj)
	sameName := err == nil && h.name == m.GetName() &&
		(h.namespace == "" || m.GetNamespace() == "" || h.namespace == m.GetNamespace())
	if h.kind != gvk.Kind || (h.apiVersion != "" && hgv.Group != gvk.Group) || !sameName {
		return fmt.Errorf("holds %s %q, not %s %q (the file changed since it was read)", h.kind, hname, gvk.Kind, name)
	}
	return nil
}

func commit(plans []*filePlan) error {
	type staged struct {
		p   *filePlan
		tmp string
	}
	var done []staged
	var createdDirs []string
	cleanup := func() {
		for _, s := range done {
			os.Remove(s.tmp)
		}
		for i := len(createdDirs) - 1; i >= 0; i-- {
			os.Remove(createdDirs[i])
		}
	}
	for _, p := range plans {
		if p.exists && string(p.out) == string(p.orig) {
			continue // nothing changed: leave the file and its time stamp alone
		}
		dir := filepath.Dir(p.real)
		dirs, err := mkdirAll(dir)
		createdDirs = append(createdDirs, dirs...)
		if err != nil {
			cleanup()
			return err
		}
		tmp, err := writeTemp(dir, filepath.Base(p.real), p.out, p.mode)
		if err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", p.path, err)
		}
		done = append(done, staged{p, tmp})
	}
	for i, s := range done {
		if err := os.Rename(s.tmp, s.p.real); err != nil {
			// Put back what was already replaced, then drop the rest.
			for _, r := range done[:i] {
				if r.p.exists {
					if t, err := writeTemp(filepath.Dir(r.p.real), filepath.Base(r.p.real), r.p.orig, r.p.mode); err == nil {
						os.Rename(t, r.p.real)
					}
				} else {
					os.Remove(r.p.real)
				}
			}
			done = done[i:]
			cleanup()
			return fmt.Errorf("write %s: %w", s.p.path, err)
		}
	}
	return nil
}

// mkdirAll creates dir and returns the directories it created, outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for _, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return created, err
		}
		created = append(created, d)
	}
	return created, nil
}

func writeTemp(dir, base string, data []byte, mode fs.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, mode)
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}
