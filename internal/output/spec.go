// Package output is the one way commands print: the -o flag resolved once per command into
// a printer, kubectl's way. Human output is a table (or, for commands that explain rather
// than list, text); -o json|yaml|jsonpath|go-template print the API objects (a List for a
// list) through k8s.io/cli-runtime's printers, or a command's computed view where it has no
// object or --view asks for it; -o name prints kind.group/name; lists add -o wide,
// custom-columns, --no-headers and --sort-by. docs/output.md describes every command's
// shapes, and a test holds it to the formats the commands declare here.
package output

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// Format families accepted by -o. A family with a value takes it after "=" (jsonpath=…),
// and its -file variant reads it from a file (jsonpath-file=PATH).
const (
	Table         = "table"
	Wide          = "wide"
	JSON          = "json"
	YAML          = "yaml"
	Name          = "name"
	JSONPath      = "jsonpath"
	GoTemplate    = "go-template"
	CustomColumns = "custom-columns"
)

// AnnotationFormats is the cobra annotation that records a command's -o formats, for the
// documentation test and for completion of -o.
const AnnotationFormats = "butler.output/formats"

// Spec declares what a command can print. Every command that prints builds one.
type Spec struct {
	// Objects: the structured formats print the command's API objects; without it they
	// print its computed view.
	Objects bool
	// View: the command also has a computed view, printed instead of the objects by --view.
	View bool
	// List: the command prints rows (a list): -o custom-columns, --no-headers, --sort-by.
	List bool
	// Wide: -o wide adds columns.
	Wide bool
	// Name: -o name prints kind.group/name of each object (or each row's name).
	Name bool
}

// Formats returns the -o values the spec accepts, in the order help lists them.
func (s Spec) Formats() []string {
	f := []string{Table}
	if s.Wide {
		f = append(f, Wide)
	}
	f = append(f, JSON, YAML)
	if s.Name {
		f = append(f, Name)
	}
	f = append(f, JSONPath, JSONPath+"-file", GoTemplate, GoTemplate+"-file")
	if s.List {
		f = append(f, CustomColumns, CustomColumns+"-file")
	}
	return f
}

// Flags are a command's print flags. -o itself is global (a persistent flag, so the config
// file and BUTLER_OUTPUT can set it); --no-headers, --sort-by and --view are the command's.
type Flags struct {
	spec      Spec
	output    *string
	NoHeaders bool
	SortBy    string
	View      bool
}

// Register declares cmd's spec, adds its print flags and records its formats. output points
// at the global -o value.
func Register(cmd *cobra.Command, output *string, spec Spec) *Flags {
	fl := &Flags{spec: spec, output: output}
	if spec.List {
		cmd.Flags().BoolVar(&fl.NoHeaders, "no-headers", false, "Print tables and custom columns without the header line")
		cmd.Flags().StringVar(&fl.SortBy, "sort-by", "", "Sort rows by this JSONPath over each item, e.g. '{.metadata.name}'")
	}
	if spec.View && spec.Objects {
		cmd.Flags().BoolVar(&fl.View, "view", false, "Print the command's computed view (docs/output.md) instead of the API objects in -o json|yaml|jsonpath|go-template")
	}
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	// Completion of -o reads this too (-o is one flag shared by every command).
	cmd.Annotations[AnnotationFormats] = strings.Join(spec.Formats(), ",")
	return fl
}

// format splits -o into its family and its value ("jsonpath={.a}" → "jsonpath", "{.a}").
func (fl *Flags) format() (family, value string) {
	o := strings.TrimSpace(*fl.output)
	if o == "" {
		return Table, ""
	}
	family, value, _ = strings.Cut(o, "=")
	return family, value
}

// Validate checks -o and the flags that go with it: an unsupported format is a usage error
// (exit 2) that lists the supported ones.
func (fl *Flags) Validate(cmd *cobra.Command) error {
	family, value := fl.format()
	supported := fl.spec.Formats()
	ok := false
	for _, s := range supported {
		if family == s {
			ok = true
		}
	}
	if !ok {
		return cmdutil.UsageError("unknown output format %q for %q\nSupported: %s", *fl.output, cmd.CommandPath(), strings.Join(withValues(supported), ", "))
	}
	takesValue := family == JSONPath || family == GoTemplate || family == CustomColumns || strings.HasSuffix(family, "-file")
	if takesValue && value == "" {
		return cmdutil.UsageError("-o %s needs a value: -o %s=…", family, family)
	}
	if !takesValue && value != "" {
		return cmdutil.UsageError("-o %s takes no value", family)
	}
	return nil
}

func withValues(formats []string) []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		switch {
		case strings.HasSuffix(f, "-file"):
			out[i] = f + "=PATH"
		case f == JSONPath || f == GoTemplate || f == CustomColumns:
			out[i] = f + "=…"
		default:
			out[i] = f
		}
	}
	return out
}

// Human reports whether -o asks for the human output (table, wide), which may differ from
// the structured shapes (colour, extra reads for columns only a table shows).
func (fl *Flags) Human() bool {
	f, _ := fl.format()
	return f == Table || f == Wide
}

// IsWide reports -o wide.
func (fl *Flags) IsWide() bool { f, _ := fl.format(); return f == Wide }

// Structured reports whether the output is meant for programs (anything but table/wide).
func (fl *Flags) Structured() bool { return !fl.Human() }

// Is reports whether -o is of the family f.
func (fl *Flags) Is(f string) bool { got, _ := fl.format(); return got == f }

// String is the -o value as given, for messages.
func (fl *Flags) String() string { return fmt.Sprint(*fl.output) }
