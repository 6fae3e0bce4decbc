// Package explain is `explain KIND[.field.path]` on both binaries: a kind's or a field's
// schema, as kubectl explain prints it, offline from the CRDs the tools carry, with the
// rules docs/rules.md states for the field and the default a create gives it.
package explain

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/crdexplain"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// View is explain's computed view, printed by -o json|yaml|jsonpath|go-template
// (docs/output.md).
type View struct {
	Kind    string `json:"kind"`
	Group   string `json:"group"`
	Version string `json:"version"`
	// Field is the field's path below the object; empty for the kind itself.
	Field       string            `json:"field,omitempty"`
	Type        string            `json:"type"`
	Required    bool              `json:"required,omitempty"`
	Description string            `json:"description,omitempty"`
	Enum        []string          `json:"enum,omitempty"`
	Default     *Default          `json:"default,omitempty"`
	Rules       []crdexplain.Rule `json:"rules,omitempty"`
	Fields      []FieldView       `json:"fields,omitempty"`
}

// Default is the value a field gets when it is not written, and who gives it.
type Default struct {
	// Value is empty when nothing resolves without a team (kubernetesVersion).
	Value string `json:"value,omitempty"`
	// Source: "built-in" (docs/rules.md §4, policy's), or "CRD" (the server fills it).
	Source string `json:"source"`
}

// FieldView is a child field: its name, type, whether it is required, its description,
// and with --recursive its own fields.
type FieldView struct {
	Name        string      `json:"name"`
	Type        string      `json:"type"`
	Required    bool        `json:"required,omitempty"`
	Description string      `json:"description,omitempty"`
	Fields      []FieldView `json:"fields,omitempty"`
}

// Spec is what explain prints: its View; there is no API object.
var Spec = output.Spec{}

// Options are what explain runs with: its argument, its flags and, from Complete, its
// dependencies.
type Options struct {
	// Deps are the streams, the -o flags and the printer they choose; explain reads no
	// store: the schemas are the tools' own.
	factory.Deps[factory.NoStore]
	// Arg is the argument: KIND[.VERSION][.GROUP][.FIELD.PATH] as typed.
	Arg string
	// Recursive prints every field below, names and types only.
	Recursive bool
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "explain KIND[.FIELD.PATH]",
		Short: "Describe a kind's fields, with Butler's rules and defaults for them",
		Long: `Describe a Butler kind or one of its fields, as kubectl explain does: its type, its
description and its fields (-required- marks those the server requires). It reads the CRDs
these tools were built with, so it works offline and says what the tools check manifests
against (butlerctl doctor compares them with a cluster's).

KIND is a kind's name, singular, plural or short name, in any case (TenantCluster,
tenantclusters, tc), optionally with its group or its version and group as kubectl takes
them (tenantclusters.butler.butlerlabs.dev, tenantcluster.v1alpha1.butler.butlerlabs.dev);
the field path follows it with dots, a list's fields reached through
the list (team.spec.environments.limits).

Where docs/rules.md states rules for the field (the team's maxNodesPerCluster caps
spec.workers.replicas), RULES lists them with their section, and DEFAULT the value a create
gives a field it defaults when neither the environment nor the team does (docs/rules.md §4;
see butlerctl cluster create --explain for a team's). An unknown kind or field is a usage
error (exit 2) with the names closest to it.`,
		Example: `  butlerctl explain tc
  butlerctl explain tenantcluster.spec.workers.replicas
  butlerctl explain tenantclusters.butler.butlerlabs.dev.spec
  butlerctl explain team.spec.resourceLimits
  butlerctl explain tc.spec.workers --recursive`,
		Args: cmdutil.ExactArgs(1, "a KIND[.FIELD.PATH], such as tc.spec.workers"),
		// No configuration, as version: the schemas are the binary's own.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Arg = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
		ValidArgsFunction: completeKinds,
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmd.Flags().BoolVar(&o.Recursive, "recursive", false, "Print every field below, with its type, and no descriptions")
	return cmd
}

// completeKinds completes the kinds' names; the fields are not completed.
func completeKinds(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	ks, err := crdexplain.Kinds()
	if len(args) > 0 || err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, k := range ks {
		out = append(out, strings.ToLower(k.Kind))
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

func run(_ context.Context, o *Options) error {
	k, path, err := crdexplain.Split(o.Arg)
	if err != nil {
		return unknown(err, "")
	}
	fl, err := crdexplain.FindField(k, path)
	if err != nil {
		return unknown(err, k.Kind)
	}
	v := view(fl, o.Recursive)
	return o.Printer.Print(output.Doc{One: true, View: v, Text: v.write(o.Recursive)})
}

// unknown words a kind or field the CRDs do not have as a usage error (exit 2) with a
// "did you mean" and what there is.
func unknown(err error, kind string) error {
	if v, ok := err.(*crdexplain.VersionError); ok {
		return cmdutil.UsageError("%v", v)
	}
	u, ok := err.(*crdexplain.UnknownError)
	if !ok {
		return err
	}
	var b strings.Builder
	if kind == "" {
		fmt.Fprintf(&b, "unknown kind %q", u.Name)
	} else {
		fmt.Fprintf(&b, "field %q does not exist in %s", u.Name, kind)
	}
	if len(u.Suggestions) > 0 {
		fmt.Fprintf(&b, "; did you mean %s?", strings.Join(u.Suggestions, " or "))
	}
	if kind == "" {
		fmt.Fprintf(&b, "\nKinds: %s", strings.Join(u.Known, ", "))
	} else if len(u.Known) > 0 {
		fmt.Fprintf(&b, "\nFields there: %s", strings.Join(u.Known, ", "))
	} else {
		b.WriteString("\nIt has no fields below it")
	}
	return cmdutil.UsageError("%s", b.String())
}

// view is what explain shows of a field (or the kind, with no path).
func view(fl *crdexplain.Field, recursive bool) View {
	s := fl.Schema
	v := View{Kind: fl.Kind.Kind, Group: fl.Kind.Group, Version: fl.Kind.Version, Field: fl.Path,
		Type: crdexplain.TypeName(s), Required: fl.Required, Description: s.Description, Rules: fl.Rules()}
	for _, e := range s.Enum {
		v.Enum = append(v.Enum, strings.Trim(string(e.Raw), `"`))
	}
	if value, src, ok := fl.Default(); ok {
		v.Default = &Default{Value: value, Source: src}
	} else if s.Default != nil {
		v.Default = &Default{Value: strings.Trim(string(s.Default.Raw), `"`), Source: "CRD"}
	}
	v.Fields = fields(s, recursive, 0)
	return v
}

// maxDepth bounds --recursive: the CRDs have no cycles, but a schema is data.
const maxDepth = 16

// fields are the child fields of s, sorted by name as kubectl does; recursively, their own.
func fields(s *apiextensionsv1.JSONSchemaProps, recursive bool, depth int) []FieldView {
	p := crdexplain.Fields(s)
	var out []FieldView
	for _, name := range crdexplain.SortedFields(p) {
		c := p.Properties[name]
		fv := FieldView{Name: name, Type: crdexplain.TypeName(&c), Required: crdexplain.Contains(p.Required, name)}
		if recursive {
			if depth < maxDepth {
				fv.Fields = fields(&c, true, depth+1)
			}
		} else {
			fv.Description = c.Description
		}
		out = append(out, fv)
	}
	return out
}
