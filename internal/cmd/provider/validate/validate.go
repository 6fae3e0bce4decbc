// Package validate is `butleradm provider validate`: check ProviderConfig manifests the way
// the server would, offline, for CI. Every problem is listed with its file, line, object
// and field.
package validate

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Spec is what provider validate prints: no API object, its Report as is (docs/output.md).
var Spec = output.Spec{}

// Options are what provider validate runs with: its flags and arguments and, from
// Complete, its dependencies.
type Options struct {
	// Deps are the streams, the -o flags and the printer, from Complete; validate reads
	// files, no store.
	factory.Deps[factory.NoStore]

	// Files are -f and the arguments; without either, Complete takes the --manifests paths.
	Files []string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "validate -f FILE [FILE...]",
		Short: "Check ProviderConfig manifests as the server would, offline (for CI)",
		Long: `Check ProviderConfig manifests without a cluster: files, directories (their .yaml, .yml and
.json files) or - for standard input, given with -f or as arguments (or, with neither, the
--manifests paths).

Every problem is listed, one a line, as FILE:LINE: ProviderConfig "NAMESPACE/NAME"
(document N): FIELD: MESSAGE, in the server's words: the manifest's structure and types,
the ProviderConfig webhook's rules, the schema rules of the ProviderConfig document and the
CRD, and two ProviderConfigs of the same name. When a file also holds the credentials Secret
a ProviderConfig references, its key names are checked against what the provider needs
(values are never read out). Exit 0 when all is well, 2 when anything is wrong.

-o json or -o yaml prints {valid, providerConfigs, problems, warnings} for tools.`,
		Example: `  butleradm provider validate -f providers/
  butleradm provider validate -f aws.yaml -f azure.yaml -o json
  cat pc.yaml | butleradm provider validate -f -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = append(o.Files, args...)
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	cmd.Flags().StringArrayVarP(&o.Files, "filename", "f", nil, "A file, a directory or - for standard input (repeatable)")
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

// Complete takes from the Factory what run needs, the --manifests paths when no file was
// named; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, _ []string) error {
	if len(o.Files) == 0 {
		o.Files = f.Options.Manifests
	}
	if len(o.Files) == 0 {
		return cmdutil.UsageError("%s needs files: -f FILE (repeatable) or FILE arguments\nSee '%s --help'.", cmd.CommandPath(), cmd.CommandPath())
	}
	return nil
}

// Checked is one ProviderConfig in -o json/yaml.
type Checked struct {
	File      string `json:"file"`
	Line      int    `json:"line,omitempty"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Provider  string `json:"provider"`
	Valid     bool   `json:"valid"`
}

// Problem is one problem in -o json/yaml.
type Problem struct {
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Document  int    `json:"document,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	Field     string `json:"field,omitempty"`
	Message   string `json:"message"`
	Error     string `json:"error"`
}

// Report is the -o json/yaml result.
type Report struct {
	Valid           bool      `json:"valid"`
	ProviderConfigs []Checked `json:"providerConfigs"`
	Problems        []Problem `json:"problems"`
	// Warnings are what Butler would admit but report on the clusters (a Nutanix provider
	// without its Prism CA chain).
	Warnings []string `json:"warnings,omitempty"`
}

func run(_ context.Context, o *Options) error {
	objs, probs := cmdutil.ReadManifests(o.Files, o.IO.In)
	pcs, more, bad := providerutil.CheckManifests(objs)
	probs = append(probs, more...)
	providerutil.SortProblems(probs)
	// Nothing to validate is a failure (exit 2), so the report must not say valid either.
	nothing := len(pcs) == 0 && len(probs) == 0
	report := Report{Valid: len(probs) == 0 && !nothing, ProviderConfigs: []Checked{}, Problems: []Problem{}}
	for _, o := range pcs {
		pc := o.Obj.(*v1alpha1.ProviderConfig)
		ns := pc.Namespace
		if ns == "" {
			ns = v1alpha1.PlatformNamespace
		}
		report.ProviderConfigs = append(report.ProviderConfigs, Checked{
			File: display(o.Source.File), Line: o.Source.Line, Namespace: ns, Name: pc.Name,
			Provider: pc.Spec.Provider, Valid: !bad[pc],
		})
		if w := providerutil.TrustBundleWarning(objs, pc); w != "" {
			report.Warnings = append(report.Warnings, w)
		}
	}
	sort.SliceStable(report.ProviderConfigs, func(i, j int) bool {
		a, b := report.ProviderConfigs[i], report.ProviderConfigs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	for _, p := range probs {
		doc := 0
		if p.File != "" {
			doc = p.Doc + 1
		}
		report.Problems = append(report.Problems, Problem{
			File: display(p.File), Line: p.Line, Document: doc, Kind: p.Kind, Namespace: p.Namespace,
			Name: p.Name, Field: p.Field, Message: p.Msg, Error: p.Error(),
		})
	}

	if nothing {
		msg := "no ProviderConfig found in " + strings.Join(o.Files, ", ")
		report.Problems = append(report.Problems, Problem{Message: msg, Error: msg})
	}
	if o.Print.Human() {
		for _, p := range probs {
			fmt.Fprintf(o.IO.ErrOut, "%s\n", inert.Lines(p.Error()))
		}
	}
	for _, w := range report.Warnings {
		fmt.Fprintf(o.IO.ErrOut, "Warning: %s\n", inert.Text(w))
	}
	err := o.Printer.Print(output.Doc{View: report, Text: func(w io.Writer) error {
		for _, c := range report.ProviderConfigs {
			if c.Valid {
				fmt.Fprintf(w, "%s:%d: ProviderConfig %q (%s): valid\n", inert.Line(c.File), c.Line, c.Namespace+"/"+c.Name, inert.Text(c.Provider))
			}
		}
		return nil
	}})
	if err != nil {
		return err
	}
	if nothing {
		return cmdutil.UsageError("no ProviderConfig found in %s", strings.Join(o.Files, ", "))
	}
	if len(probs) > 0 {
		noun := "problems"
		if len(probs) == 1 {
			noun = "problem"
		}
		return cmdutil.UsageError("%d %s found; %d of the %d ProviderConfigs that decoded are valid", len(probs), noun, len(pcs)-len(bad), len(pcs))
	}
	return nil
}

func display(file string) string {
	if file == manifest.Stdin {
		return "<stdin>"
	}
	return file
}
