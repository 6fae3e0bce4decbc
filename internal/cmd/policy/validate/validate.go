// Package validate is `butleradm policy validate`: check ClusterCreationPolicy manifests as
// the server's admission would (docs/cluster-creation-policies.md), offline, for CI.
package validate

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// View is policy validate's result: valid agrees with the exit status (0 or 2).
type View struct {
	Valid  bool     `json:"valid"`
	Errors []string `json:"errors"`
}

// Spec is what policy validate prints: its View.
var Spec = output.Spec{View: true}

// Store is what policy validate reads on manifests: the teams policies name.
type Store = store.Reader

// Options are what policy validate runs with: its flags and, from Complete, its
// dependencies.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete. The store is
	// --manifests, to check team and environment references against; nil without them
	// (the references are not checked).
	factory.Deps[Store]

	Files []string
	// commandPath names the command in a usage error.
	commandPath string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "validate -f FILE",
		Short: "Check ClusterCreationPolicy manifests as the server would, offline (for CI)",
		Long: `Check ClusterCreationPolicy manifests without a cluster: decoding, the scope rule of the
CRD, each option rule and conflicts with the other policies of the files, in the server's
words. Team and environment references are checked against --manifests when given, and not
checked without it. Exit 0 when all is well, 2 when anything is wrong; -o json prints
{valid, errors}.`,
		Example: `  butleradm policy validate -f policies/
  butleradm policy validate -f policy.yaml --manifests DIR -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	cmd.Flags().StringArrayVarP(&o.Files, "filename", "f", nil, "A file, a directory or - for standard input (repeatable)")
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

// Complete takes from the Factory what run needs, the store only on manifests; it reads
// nothing yet.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, _ []string) error {
	if !f.Offline() {
		o.Store = nil
	}
	o.commandPath = cmd.CommandPath()
	return nil
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if len(o.Files) == 0 {
		return cmdutil.UsageError("%s needs -f FILE\nSee '%s --help'.", o.commandPath, o.commandPath)
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	objs, probs := cmdutil.ReadManifests(o.Files, o.IO.In)
	v := View{Errors: []string{}}
	for _, p := range probs {
		v.Errors = append(v.Errors, p.Error())
	}
	var policies []v1alpha1.ClusterCreationPolicy
	for _, obj := range objs {
		if p, ok := obj.Obj.(*v1alpha1.ClusterCreationPolicy); ok {
			policies = append(policies, *p)
		}
	}
	teams, err := teamFunc(ctx, o.Store)
	if err != nil {
		return err
	}
	for i := range policies {
		p := &policies[i]
		d := policy.AdmitPolicy(policy.PolicyRequest{Policy: p, Team: teams, Others: policies})
		for _, viol := range d.Violations {
			if teams == nil && (viol.Rule == policy.RulePolicyTeamRef || viol.Rule == policy.RulePolicyEnvironmentRef) {
				continue
			}
			v.Errors = append(v.Errors, fmt.Sprintf("ClusterCreationPolicy %q: %s", p.Name, viol.Error.Error()))
		}
	}
	if len(policies) == 0 && len(probs) == 0 {
		v.Errors = append(v.Errors, "no ClusterCreationPolicy found in "+strings.Join(o.Files, ", "))
	}
	v.Valid = len(v.Errors) == 0
	err = o.Printer.Print(output.Doc{One: true, Items: []output.Item{{View: v}},
		Text: func(w io.Writer) error { return describe(w, v, len(policies)) }})
	if err != nil {
		return err
	}
	if !v.Valid {
		return &cmdutil.SilentError{Code: cmdutil.ExitUsage}
	}
	return nil
}

// teamFunc looks teams up in --manifests; nil without them (references are not checked).
func teamFunc(ctx context.Context, open func(context.Context) (Store, error)) (func(string) *v1alpha1.Team, error) {
	if open == nil {
		return nil, nil
	}
	s, err := open(ctx)
	if err != nil {
		return nil, err
	}
	teams, err := s.ListTeams(ctx)
	if err != nil {
		return nil, err
	}
	return func(name string) *v1alpha1.Team {
		for i := range teams {
			if teams[i].Name == name {
				return &teams[i]
			}
		}
		return nil
	}, nil
}

func describe(w io.Writer, v View, n int) error {
	for _, e := range v.Errors {
		fmt.Fprintln(w, inert.Lines(e))
	}
	if v.Valid {
		fmt.Fprintf(w, "%d ClusterCreationPolicies valid\n", n)
	}
	return nil
}
