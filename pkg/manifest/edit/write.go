package edit

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// Change is one edit of a manifest file: manifest.Change, with the document it edits
// (Source) as this package needs it.
type Change struct {
	Source *Source // nil: Obj is a new document of File
	File   string
	Obj    runtime.Object
	Delete bool
	// Mode is the permission of a file the change creates (0: 0644); an existing file
	// keeps its own. A Secret's file is created 0600, and its data is never on disk
	// under a wider mode.
	Mode fs.FileMode
}

// Source is the document (or List item) a change edits: where manifest.Source says it
// was read from.
type Source struct {
	File string
	Doc  int // 0-based, counting empty documents
	Item int // 1-based position in the items of a List, 0 for the document itself
	// Name is how messages name the document: manifest.Source.String(), "file:line
	// (document n)".
	Name string
}

// String names the document as messages do.
func (s Source) String() string { return s.Name }

// stdin is manifest.Stdin, the name standard input is read under: nothing is written to it.
const stdin = "-"

// Write applies changes. Every file is rendered in memory first and any error leaves all
// files untouched; then each changed file is replaced atomically (a temporary file in the
// same directory, renamed over it, keeping its mode) and each new file created only if
// its name is still free (see commit.go). Should one fail, the files already written are
// put back.
//
// Write does not lock: a caller that reads, checks and then writes holds a lock over all
// three (the offline store does), so that two runs cannot both act on what they read.
func Write(changes []Change) error {
	plan, err := plan(changes)
	if err != nil {
		return err
	}
	return commit(plan)
}

// Render works changes out as Write does, with every check of Write, and writes nothing:
// what a dry run of an edit runs.
func Render(changes []Change) error {
	_, err := plan(changes)
	return err
}

// commit writes the rendered files through fileio (atomically, all or none, keeping mode,
// owner and group; a new file only if its name is still free).
func commit(plans []*filePlan) error {
	changes := make([]fileio.Change, 0, len(plans))
	for _, p := range plans {
		changes = append(changes, fileio.Change{File: p.file, Data: p.out})
	}
	return fileio.Commit(changes)
}

// MaxWriteSize bounds the file an edit reads back before changing it, counted as it is
// read: a file replaced by /dev/zero since it was loaded cannot exhaust memory.
const MaxWriteSize = 64 << 20

type fileChange struct {
	index  int // position of the change in the caller's slice, for messages
	change Change
}

type filePlan struct {
	path    string // as given by the first change naming it
	file    *fileio.File
	orig    []byte
	exists  bool
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
		case path == stdin:
			return nil, fmt.Errorf("change %d: %s was read from standard input and cannot be written back", i+1, describeChange(c))
		case path == "":
			return nil, fmt.Errorf("change %d: no file to write %s to", i+1, describeChange(c))
		case c.Source == nil && c.Delete:
			return nil, fmt.Errorf("change %d: a deletion needs the Source of the document", i+1)
		case !c.Delete && c.Obj == nil:
			return nil, fmt.Errorf("change %d: no object to write to %s", i+1, path)
		}
		f, err := fileio.Open(path, 0o644, MaxWriteSize)
		if err != nil {
			return nil, fmt.Errorf("change %d: %w", i+1, err)
		}
		p := byPath[f.Real]
		if p == nil {
			p = &filePlan{path: path, file: f, orig: f.Orig, exists: f.Exists}
			byPath[f.Real] = p
			order = append(order, p)
		}
		if !p.exists && c.Mode != 0 {
			f.Mode = c.Mode.Perm()
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
func identity(o runtime.Object) (k8sschema.GroupVersionKind, string) {
	gvk := o.GetObjectKind().GroupVersionKind()
	if ki := schema.KindOf(o); ki != nil {
		gvk = ki.GVK()
	}
	name := ""
	if m, err := meta.Accessor(o); err == nil {
		name = qualified(m.GetNamespace(), m.GetName())
	}
	return gvk, name
}

// docChanges are the changes of one document: the document whole, or items of its List.
type docChanges struct {
	whole *fileChange
	items []fileChange
}

func (p *filePlan) render() ([]byte, error) {
	text := string(p.orig)
	segs := yamldoc.SplitDocuments(text)
	perSeg, appends, err := p.byDocument(segs)
	if err != nil {
		return nil, err
	}
	for si, dc := range perSeg {
		seg := segs[si]
		if dc.whole != nil {
			c := dc.whole.change
			out, err := editDocument(seg, 0, c.Obj, c.Delete)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.Source, err)
			}
			segs[si].Text = out
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
			seg.Text = out
		}
		segs[si].Text = seg.Text
	}
	var b strings.Builder
	for i, s := range segs {
		b.WriteString(s.Text)
		if i+1 < len(segs) && s.Text != "" && !strings.HasSuffix(s.Text, "\n") {
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

// byDocument sorts the changes of the file by the segment of the document they change (no
// more than one change to a document, or to an item of a List), and lists those that
// append a new document.
func (p *filePlan) byDocument(segs []yamldoc.Segment) (map[int]*docChanges, []fileChange, error) {
	byDoc := map[int]int{}
	for i, s := range segs {
		if s.Doc >= 0 {
			byDoc[s.Doc] = i
		}
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
			return nil, nil, fmt.Errorf("%s: no such document (the file changed since it was read)", c.Source)
		}
		dc := perSeg[si]
		if dc == nil {
			dc = &docChanges{}
			perSeg[si] = dc
		}
		if c.Source.Item == 0 {
			if dc.whole != nil || len(dc.items) > 0 {
				return nil, nil, fmt.Errorf("%s: more than one change to the same document", c.Source)
			}
			f := fc
			dc.whole = &f
			continue
		}
		if dc.whole != nil {
			return nil, nil, fmt.Errorf("%s: more than one change to the same document", c.Source)
		}
		for _, o := range dc.items {
			if o.change.Source.Item == c.Source.Item {
				return nil, nil, fmt.Errorf("%s: more than one change to the same item", c.Source)
			}
		}
		dc.items = append(dc.items, fc)
	}
	return perSeg, appends, nil
}

func (p *filePlan) appendDocs(text string, appends []fileChange) (string, error) {
	isJSON := strings.EqualFold(filepath.Ext(p.path), ".json")
	segs := yamldoc.SplitDocuments(text)
	hasDocs := false
	for _, s := range segs {
		if s.Doc >= 0 && yamldoc.HasContent(s.Text) {
			hasDocs = true
		}
	}
	if isJSON && (hasDocs || len(appends) > 1) {
		return "", fmt.Errorf("%s: a JSON file holds one document; cannot add another", p.path)
	}
	st := defaultStyle
	for _, s := range segs {
		if doc, _, _, err := yamldoc.ParseSegment(s); err == nil && doc != nil {
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
		if ls := yamldoc.SplitLines(text); len(ls) > 0 {
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
	n, _, err := schema.ObjectNode(obj)
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

func qualified(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
