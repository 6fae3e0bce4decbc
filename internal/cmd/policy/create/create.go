// Package create is `butleradm policy create`: a ClusterCreationPolicy from flags or a file,
// admitted with AdmitPolicy's messages before anything is written
// (docs/cluster-creation-policies.md).
package create

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/policyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec is what policy create prints: a line for people; for programs the policy created.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what policy create reads and writes: the other policies, the teams and who asks,
// and the one write.
type Store = policyutil.Writer

// Options are the flags and arguments of policy create.
type Options struct {
	// SpecOptions are NAME, the spec's flags, -f and the dependencies, from Complete.
	policyutil.SpecOptions
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "create NAME (--scope platformWide|team|teamAndEnvironment [--team T] [--environment E] [--provider-type P]... --option OPTION=MODE:V1,V2... | -f FILE)",
		Short: "Create a ClusterCreationPolicy, refused with the server's messages (platform admins only)",
		Example: `  butleradm policy create payments-images --scope team --team payments --option image=allowList:ubuntu-24 --manifests DIR --as admin@example.com
  butleradm policy create -f policy.yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Scope, "scope", "", "platformWide, team or teamAndEnvironment")
	cmdutil.TeamFlag(fl, &o.Team, cmdutil.TeamOfScope)
	fl.StringVar(&o.Environment, "environment", "", "The environment of a teamAndEnvironment scope")
	fl.StringArrayVar(&o.Providers, "provider-type", nil, "Only for this provider type (repeatable; default every provider)")
	fl.StringArrayVar(&o.Rules, "option", nil, "OPTION=MODE[:V1,V2...] (repeatable), e.g. image=pin:ubuntu-24")
	fl.StringVarP(&o.File, "filename", "f", "", "The whole ClusterCreationPolicy from a YAML file (- for standard input)")
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	factory.AddDryRun(cmd, f)
	return cmd
}

// Validate checks -o and that standard input is read once.
func (o *Options) Validate() error {
	return o.OneStdin()
}

func run(ctx context.Context, o *Options) error {
	p, err := o.policy()
	if err != nil {
		return err
	}
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	if err := policyutil.Authorize(ctx, s, "create", p.Name); err != nil {
		return err
	}
	if err := policyutil.Admit(ctx, s, policy.Create, p); err != nil {
		return err
	}
	res, err := s.CreateClusterCreationPolicy(ctx, p)
	if err != nil {
		return err
	}
	return o.Printer.Done(p, fmt.Sprintf("clustercreationpolicy %q created", p.Name), store.Where(res, s))
}

// policy builds the object from -f FILE or the flags; a bad input is a usage error.
func (o *Options) policy() (*v1alpha1.ClusterCreationPolicy, error) {
	if o.File != "" {
		return o.FromFile()
	}
	if o.Name == "" {
		return nil, cmdutil.UsageError("policy create needs a NAME or -f FILE")
	}
	p := &v1alpha1.ClusterCreationPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindClusterCreationPolicy},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name},
	}
	scope, err := policyutil.Scope(o.Scope, o.Team, o.Environment)
	if err != nil {
		return nil, err
	}
	p.Spec.Scope = scope
	p.Spec.TargetProviders = policyutil.Providers(o.Providers)
	if err := policyutil.SetOptions(p, o.Rules); err != nil {
		return nil, err
	}
	return p, nil
}
