package explain

import (
	"fmt"
	"io"
	"strings"
)

// write is the human output, kubectl explain's layout: the kind, the field and its type,
// DESCRIPTION, then Butler's DEFAULT and RULES, then FIELDS.
func (v View) write(recursive bool) func(io.Writer) error {
	return func(w io.Writer) error {
		fmt.Fprintf(w, "KIND:       %s\nGROUP:      %s\nVERSION:    %s\n\n", v.Kind, v.Group, v.Version)
		if v.Field != "" {
			fmt.Fprintf(w, "FIELD:      %s <%s>%s\n\n", v.Field, v.Type, required(v.Required))
		}
		fmt.Fprintln(w, "DESCRIPTION:")
		if v.Description == "" {
			v.Description = "<empty>"
		}
		indent(w, v.Description, "    ")
		if len(v.Enum) > 0 {
			fmt.Fprintf(w, "\nENUM:\n    %s\n", strings.Join(v.Enum, ", "))
		}
		if d := v.Default; d != nil {
			fmt.Fprintln(w, "\nDEFAULT:")
			switch {
			case d.Source == "CRD":
				fmt.Fprintf(w, "    %s (the CRD's: the server fills it in)\n", d.Value)
			case d.Value == "":
				indent(w, wrap("none built in: a create takes the environment's, then the team's clusterDefaults (docs/rules.md §4. Cluster defaults)", 84, ""), "    ")
			default:
				indent(w, wrap(fmt.Sprintf("%s (%s), when neither the environment's nor the team's clusterDefaults (nor the team's resourceLimits defaults) give one (docs/rules.md §4. Cluster defaults)", d.Value, d.Source), 84, ""), "    ")
			}
		}
		if len(v.Rules) > 0 {
			fmt.Fprintln(w, "\nRULES:")
			for _, r := range v.Rules {
				indent(w, wrap(fmt.Sprintf("- %s (docs/rules.md %s)", r.Text, r.Section), 84, "  "), "    ")
			}
		}
		if len(v.Fields) > 0 {
			fmt.Fprintln(w, "\nFIELDS:")
			writeFields(w, v.Fields, "  ", recursive)
		}
		return nil
	}
}

// writeFields prints each field as kubectl does: name, a tab, <type> and -required-; its
// description under it, or with --recursive its fields.
func writeFields(w io.Writer, fs []FieldView, pad string, recursive bool) {
	for i, f := range fs {
		fmt.Fprintf(w, "%s%s\t<%s>%s\n", pad, f.Name, f.Type, required(f.Required))
		if recursive {
			writeFields(w, f.Fields, pad+"  ", true)
			continue
		}
		desc := f.Description
		if desc == "" {
			desc = "<no description>"
		}
		indent(w, desc, pad+"  ")
		if i < len(fs)-1 {
			fmt.Fprintln(w)
		}
	}
}

func required(r bool) string {
	if r {
		return " -required-"
	}
	return ""
}

// indent prints text's lines, each after pad.
func indent(w io.Writer, text, pad string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintln(w, strings.TrimRight(pad+l, " "))
	}
}

// wrap breaks text into lines of at most width columns at spaces, the lines after the
// first after hang.
func wrap(text string, width int, hang string) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		switch {
		case i == 0:
		case line+1+len(word) > width:
			b.WriteString("\n" + hang)
			line = len(hang)
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}
