package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// Doc is what a command hands the printer: its items (rows, objects) and how to show them
// to people. The printer chooses by -o; the command never does.
type Doc struct {
	// Items in the command's order; --sort-by reorders them.
	Items []Item
	// One: a get of a single object or view, printed as itself rather than as a List.
	One bool
	// View is the command's whole computed view, when it is not just the items' views.
	View any
	// Header and WideHeader are the table's columns; wide appends WideHeader.
	Header, WideHeader []string
	// Text writes the human output of commands that explain rather than list; nil for tables.
	Text func(w io.Writer) error
	// Empty is said on stderr when a table has no rows ("No tenant clusters found.").
	Empty string
	// Drop names the columns, by header, a table leaves out first when it is wider than
	// the terminal (the rest are cut to fit; -o wide and pipes print in full).
	Drop []string
	// ViewOnly: the structured formats print View even on a command with objects, for
	// answers that have no object (an explanation, a refusal).
	ViewOnly bool
}

// Item is one row: its API object (nil when the command has none), its computed view, and
// its table cells.
type Item struct {
	Object runtime.Object
	View   any
	// Name is printed by -o name when there is no object.
	Name       string
	Cells      []string
	WideCells  []string
	objectData map[string]any
}

// Printer prints Docs per the command's flags.
type Printer struct {
	fl      *Flags
	streams *iostreams.IOStreams
	// Suffix ends each line that reports a write: " (dry run)" under --dry-run, as
	// kubectl's, so a dry run's output is never read as done.
	Suffix string
}

// Printer resolves the flags into a printer. Validate first.
func (fl *Flags) Printer(streams *iostreams.IOStreams) *Printer {
	return &Printer{fl: fl, streams: streams}
}

// Print writes d per -o.
func (p *Printer) Print(d Doc) error {
	family, value := p.fl.format()
	viewMode := p.fl.View || !p.fl.spec.Objects || d.ViewOnly
	if p.fl.SortBy != "" {
		if err := sortItems(d.Items, p.fl.SortBy, viewMode); err != nil {
			return err
		}
	}
	out := p.streams.Out
	switch family {
	case Table, Wide:
		return p.human(d, family == Wide)
	case CustomColumns, CustomColumns + "-file":
		return p.customColumns(d, family, value, viewMode)
	case Name:
		return p.names(d)
	}
	if viewMode {
		return printView(out, family, value, viewOf(d))
	}
	return printObjects(out, family, value, d)
}

func (p *Printer) human(d Doc, wide bool) error {
	if d.Text != nil {
		return d.Text(p.streams.Out)
	}
	if len(d.Items) == 0 {
		if d.Empty != "" {
			fmt.Fprintln(p.streams.ErrOut, d.Empty)
		}
		return nil
	}
	header := d.Header
	if wide {
		header = append(append([]string{}, header...), d.WideHeader...)
	}
	t := tables.NewTable(p.streams.ColorEnabled(), header...)
	t.NoHeaders = p.fl.NoHeaders
	if !wide {
		t.Width, t.Drop = p.streams.Width(), d.Drop
	}
	for _, it := range d.Items {
		row := it.Cells
		if wide {
			row = append(append([]string{}, row...), it.WideCells...)
		}
		t.Row(row...)
	}
	return t.Render(p.streams.Out)
}

func (p *Printer) names(d Doc) error {
	np := &printers.NamePrinter{}
	for _, it := range d.Items {
		if it.Object == nil {
			fmt.Fprintln(p.streams.Out, it.Name)
			continue
		}
		if err := np.PrintObj(it.Object, p.streams.Out); err != nil {
			return err
		}
	}
	return nil
}

// viewOf is the computed view: the whole view, the one item's, or the items' in order.
func viewOf(d Doc) any {
	if d.View != nil {
		return d.View
	}
	if d.One && len(d.Items) == 1 {
		return d.Items[0].View
	}
	views := make([]any, 0, len(d.Items))
	for _, it := range d.Items {
		views = append(views, it.View)
	}
	return views
}

// printObjects prints API objects through cli-runtime's printers: the object itself for a
// get, else a v1 List, as kubectl does.
func printObjects(w io.Writer, family, value string, d Doc) error {
	var obj runtime.Object
	if d.One && len(d.Items) == 1 {
		u, err := objectOf(d.Items[0].Object)
		if err != nil {
			return err
		}
		obj = u
	} else {
		list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{}}}
		for _, it := range d.Items {
			u, err := objectOf(it.Object)
			if err != nil {
				return err
			}
			list.Items = append(list.Items, *u)
		}
		obj = list
	}
	rp, err := resourcePrinter(family, value)
	if err != nil {
		return err
	}
	return rp.PrintObj(obj, w)
}

// objectOf is obj as unstructured, without the noise an unsent object carries
// (creationTimestamp: null, an empty status).
func objectOf(obj runtime.Object) (*unstructured.Unstructured, error) {
	if obj == nil || obj.GetObjectKind().GroupVersionKind().Empty() {
		return nil, fmt.Errorf("internal error: an object to print has no apiVersion and kind (%T)", obj)
	}
	m, err := Clean(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// resourcePrinter builds the -o printer from cli-runtime's printers package as kubectl's
// print flags do (missing keys allowed, managed fields omitted, the same error texts), but
// without those flags: their package links client-go's discovery and its registry of every
// core Kubernetes type, whose initialisation every run paid for, `butlerctl version` too.
func resourcePrinter(family, value string) (printers.ResourcePrinter, error) {
	switch family {
	case JSON:
		return &printers.OmitManagedFieldsPrinter{Delegate: &printers.JSONPrinter{}}, nil
	case YAML:
		return &printers.OmitManagedFieldsPrinter{Delegate: &printers.YAMLPrinter{}}, nil
	case JSONPath, JSONPath + "-file", GoTemplate, GoTemplate + "-file":
	default:
		if value != "" {
			return nil, cmdutil.UsageError("unknown output format %q", family+"="+value)
		}
		return nil, cmdutil.UsageError("unknown output format %q", family)
	}
	if value == "" {
		return nil, cmdutil.UsageError("-o %s: template format specified but no template given", family)
	}
	if strings.HasSuffix(family, "-file") {
		data, err := fileio.ReadFile(value, maxTemplateBytes)
		if err != nil {
			return nil, cmdutil.UsageError("-o %s: error reading --template %s, %v", family, value, err)
		}
		value = string(data)
	}
	if strings.HasPrefix(family, JSONPath) {
		p, err := printers.NewJSONPathPrinter(value)
		if err != nil {
			return nil, cmdutil.UsageError("-o %s: error parsing jsonpath %s, %v", family, value, err)
		}
		p.AllowMissingKeys(true)
		return p, nil
	}
	p, err := printers.NewGoTemplatePrinter([]byte(value))
	if err != nil {
		return nil, cmdutil.UsageError("-o %s: error parsing template %s, %v", family, value, err)
	}
	p.AllowMissingKeys(true)
	return p, nil
}

// printView prints a computed view, which has no apiVersion or kind: JSON and YAML are
// written directly, jsonpath and go-template run over its JSON form.
func printView(w io.Writer, family, value string, view any) error {
	switch family {
	case JSON:
		b, err := json.MarshalIndent(view, "", "    ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case YAML:
		b, err := yaml.Marshal(view)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	rp, err := resourcePrinter(family, value)
	if err != nil {
		return err
	}
	return rp.PrintObj(&viewObject{view: view}, w)
}

// viewObject lets cli-runtime's template printers run over a computed view.
type viewObject struct{ view any }

func (v *viewObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (v *viewObject) DeepCopyObject() runtime.Object   { return &viewObject{view: v.view} }
func (v *viewObject) MarshalJSON() ([]byte, error)     { return json.Marshal(v.view) }

// Done reports a write: for people one line, msg and where it went when the store names a
// place (a file offline); for programs the object as written (-o name: kind.group/name).
func (p *Printer) Done(obj runtime.Object, msg, location string) error {
	return p.Print(Doc{
		One:   true,
		Items: []Item{{Object: obj}},
		Text: func(w io.Writer) error {
			_, err := fmt.Fprintln(w, p.DoneLine(msg, location))
			return err
		},
	})
}

// DoneLine is the human line that reports a write: msg, where it went when the store
// names a place (a file offline), and the Suffix. Commands that report several writes in
// one Doc use it.
func (p *Printer) DoneLine(msg, location string) string {
	if location != "" {
		msg += " (" + location + ")"
	}
	if p == nil {
		return msg
	}
	return msg + p.Suffix
}

// YAMLDocuments writes the items' objects as YAML documents separated by "---": the human
// output of a dry run, ready for kubectl apply -f or a GitOps folder.
func (d Doc) YAMLDocuments(w io.Writer) error {
	for i, it := range d.Items {
		u, err := objectOf(it.Object)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := fmt.Fprintln(w, "---"); err != nil {
				return err
			}
		}
		b, err := yaml.Marshal(u.Object)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// maxTemplateBytes bounds the file of -o go-template-file and jsonpath-file: a template,
// not a data set.
const maxTemplateBytes = 1 << 20
