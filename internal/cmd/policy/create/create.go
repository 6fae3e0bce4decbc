// Package create is `butleradm policy create`: a ClusterCreationPolicy from flags or a file,
// admitted with AdmitPolicy's messages before anything is written
// (docs/cluster-creation-policies.md).
package create

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/delete"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec is what policy create prints: a line for people; for programs the policy created.
var Spec = output.Spec{Objects: true, Name: true}

// Options are the flags and arguments of policy create.
type Options struct {
	Name, Scope, Team, Environment, File string
	Providers, Rules                     []string
	Print                                *output.Flags
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
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
			if err := o.Print.Validate(cmd); err != nil {
				return err
			}
			return run(cmd.Context(), f, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Scope, "scope", "", "platformWide, team or teamAndEnvironment")
	fl.StringVar(&o.Team, "team", "", "The team of a team or teamAndEnvironment scope")
	fl.StringVar(&o.Environment, "environment", "", "The environment of a teamAndEnvironment scope")
	fl.StringArrayVar(&o.Providers, "provider-type", nil, "Only for this provider type (repeatable; default every provider)")
	fl.StringArrayVar(&o.Rules, "option", nil, "OPTION=MODE[:V1,V2...] (repeatable), e.g. image=pin:ubuntu-24")
	fl.StringVarP(&o.File, "filename", "f", "", "The whole ClusterCreationPolicy from a YAML file")
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
	p, err := o.policy()
	if err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	if err := delete.Authorize(ctx, s, "create", p.Name); err != nil {
		return err
	}
	others, err := s.ListClusterCreationPolicies(ctx)
	if err != nil {
		return err
	}
	d := policy.AdmitPolicy(policy.PolicyRequest{Policy: p, Others: others, Team: func(name string) *v1alpha1.Team {
		t, err := s.GetTeam(ctx, name)
		if err != nil {
			return nil
		}
		return t
	}})
	if !d.Allowed() {
		return cmdutil.DeniedError(d.Err())
	}
	w, ok := s.(store.CreationPolicies)
	if !ok {
		return fmt.Errorf("this store cannot write ClusterCreationPolicies")
	}
	res, err := w.CreateClusterCreationPolicy(ctx, p)
	if err != nil {
		return err
	}
	return o.Print.Printer(f.IOStreams).Done(p, fmt.Sprintf("clustercreationpolicy %q created", p.Name), f.Where(res, s))
}

// policy builds the object from -f FILE or the flags; a bad input is a usage error.
func (o *Options) policy() (*v1alpha1.ClusterCreationPolicy, error) {
	if o.File != "" {
		return o.fromFile()
	}
	if o.Name == "" {
		return nil, cmdutil.UsageError("policy create needs a NAME or -f FILE")
	}
	p := &v1alpha1.ClusterCreationPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindClusterCreationPolicy},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name},
	}
	switch o.Scope {
	case "platformWide":
		p.Spec.Scope.PlatformWide = &v1alpha1.PlatformWideScope{}
	case "team":
		p.Spec.Scope.Team = &v1alpha1.TeamScope{TeamRef: v1alpha1.LocalObjectReference{Name: o.Team}}
	case "teamAndEnvironment":
		p.Spec.Scope.TeamAndEnvironment = &v1alpha1.TeamAndEnvironmentScope{
			TeamRef: v1alpha1.LocalObjectReference{Name: o.Team}, EnvironmentName: o.Environment}
	default:
		return nil, cmdutil.UsageError("--scope must be platformWide, team or teamAndEnvironment, got %q", o.Scope)
	}
	for _, pt := range o.Providers {
		p.Spec.TargetProviders = append(p.Spec.TargetProviders, v1alpha1.PolicyProviderType(pt))
	}
	for _, r := range o.Rules {
		key, rest, ok := strings.Cut(r, "=")
		if !ok || key == "" {
			return nil, cmdutil.UsageError("--option %q: want OPTION=MODE[:V1,V2...]", r)
		}
		mode, values, _ := strings.Cut(rest, ":")
		rule := v1alpha1.OptionRule{Mode: mode}
		if values != "" {
			rule.Values = strings.Split(values, ",")
		}
		if mode == v1alpha1.ModeDefault {
			rule.Default, rule.Values = values, nil
		}
		if p.Spec.Options == nil {
			p.Spec.Options = map[string]v1alpha1.OptionRule{}
		}
		p.Spec.Options[key] = rule
	}
	return p, nil
}

func (o *Options) fromFile() (*v1alpha1.ClusterCreationPolicy, error) {
	data, err := os.ReadFile(o.File)
	if err != nil {
		return nil, cmdutil.UsageError("%v", err)
	}
	objs, err := manifest.Decode(o.File, data)
	if err != nil {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	for _, obj := range objs {
		if p, ok := obj.Obj.(*v1alpha1.ClusterCreationPolicy); ok {
			if o.Name != "" && p.Name != o.Name {
				return nil, cmdutil.UsageError("NAME %q differs from the file's %q", o.Name, p.Name)
			}
			return p, nil
		}
	}
	return nil, cmdutil.UsageError("no ClusterCreationPolicy in %s", o.File)
}
