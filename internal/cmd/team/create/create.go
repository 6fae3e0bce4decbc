// Package create is `butleradm team create`: build a Team from flags, check it against the
// Team webhook's rules, then create it (offline: a new file in the manifests).
package create

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/teamview"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Store is what team create reads and writes: who asks and whether the team or its
// provider exists (store.Reader), which store it is, and the one write.
type Store interface {
	store.Reader
	store.Kinded
	CreateTeam(ctx context.Context, t *v1alpha1.Team) (store.Result, error)
}

var _ Store = store.Store(nil)

// Options are the flags and arguments of team create.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	Name         string
	DisplayName  string
	Description  string
	AccessUsers  []string
	AccessGroups []string
	Provider     string

	limitFlags teamedit.LimitFlags
	envs       envFlags
	limits     teamedit.LimitsPatch
	users      []teamedit.UserGrant
	groups     []teamedit.GroupGrant
	// providerSet: --provider was given (a default from the config file is not checked).
	providerSet bool
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a team with its members, provider and limits",
		Long: `Create a Team. The name becomes the team's namespace, so it must be a DNS-1123 label.

Members are given as --access-user EMAIL:ROLE and --access-group NAME:ROLE[:IDENTITY-PROVIDER],
roles admin, operator or viewer. Resource limits may only be set by platform admins: the
change is checked against the server's Team rules first, and a denial prints the server's
message and exits 4.

Working on manifests, the team is written to a new file teams/NAME.yaml under the first
--manifests directory (or appended to the --manifests file).

--environments dev,staging gives the team ready-made environments, each with the limits and
cluster defaults of the --env-* flags; --environments-file FILE takes them whole from a
YAML list of spec.environments entries. They pass the same Team rules.`,
		Example: `  butleradm team create checkout --display-name Checkout \
    --access-user alice@example.com:admin --access-user bob@example.com:operator \
    --access-group payments-devs:viewer:okta --provider harvester-prod \
    --max-clusters 10 --max-memory 512Gi --manifests gitops/ --as olivia@example.com
  butleradm team create checkout --access-user alice@example.com:admin --dry-run -o yaml
  butleradm team create checkout --access-user alice@example.com:admin \
    --environments dev,staging --env-max-clusters-per-member 2 --env-cluster-default workerCount=1
  butleradm team create checkout --access-user alice@example.com:admin --environments-file envs.yaml`,
		Args: cmdutil.ExactArgs(1, "a team NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	fl.StringVar(&o.DisplayName, "display-name", "", "Display name")
	fl.StringVar(&o.Description, "description", "", "Description")
	fl.StringArrayVar(&o.AccessUsers, "access-user", nil, "Member as EMAIL:ROLE, role admin, operator or viewer (repeatable)")
	fl.StringArrayVar(&o.AccessGroups, "access-group", nil, "Group as NAME:ROLE[:IDENTITY-PROVIDER] (repeatable)")
	fl.StringVar(&o.Provider, "provider", "", "ProviderConfig the team's clusters use by default (spec.providerConfigRef)")
	o.limitFlags.AddFlags(fl)
	o.envs.addFlags(fl)
	factory.AddDryRun(cmd, f)
	return cmd
}

// Spec is what team create prints: a line for people, the Team for programs.
var Spec = output.Spec{Objects: true, Name: true}

// Complete parses the limits, access and environment flags; bad values are usage errors.
// It reads nothing.
func (o *Options) Complete(_ *factory.Factory, cmd *cobra.Command, _ []string) error {
	o.providerSet = cmdutil.IsSet(cmd.Flags(), "provider")
	var err error
	if o.limits, err = o.limitFlags.Parse(cmd.Flags()); err != nil {
		return err
	}
	if o.users, o.groups, err = teamedit.ParseAccess(o.AccessUsers, o.AccessGroups, false); err != nil {
		return err
	}
	return o.envs.parse(cmd.Flags())
}

// Validate checks the team's name and --provider before anything is read.
func (o *Options) Validate() error {
	if errs := validation.IsDNS1123Label(o.Name); len(errs) > 0 {
		return cmdutil.UsageError("invalid team name %q: %s", o.Name, strings.Join(errs, "; "))
	}
	if o.providerSet {
		if errs := validation.IsDNS1123Subdomain(o.Provider); len(errs) > 0 {
			return cmdutil.UsageError("--provider %q: %s", o.Provider, strings.Join(errs, "; "))
		}
	}
	return nil
}

// build is the Team the flags describe.
func (o *Options) build() *v1alpha1.Team {
	t := &v1alpha1.Team{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTeam},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name},
		Spec: v1alpha1.TeamSpec{
			DisplayName: o.DisplayName,
			Description: o.Description,
		},
	}
	if a := teamedit.NewAccess(o.users, o.groups); a != nil {
		t.Spec.Access = *a
	}
	if !o.limits.Empty() {
		t.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{}
		o.limits.ApplyTo(t.Spec.ResourceLimits)
	}
	if o.Provider != "" {
		t.Spec.ProviderConfigRef = &v1alpha1.LocalObjectReference{Name: o.Provider}
	}
	t.Spec.Environments = o.envs.specs
	return t
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	team := o.build()
	// Admission comes before the existence check, as on the server.
	if _, err := teamedit.Admit(ctx, s, policy.Create, nil, team); err != nil {
		return err
	}
	if o.Provider != "" {
		warnMissingProvider(ctx, o.IO.ErrOut, s, team)
	}

	var res store.Result
	if o.DryRun.Client() {
		if _, err := s.GetTeam(ctx, team.Name); err == nil {
			return apierrors.NewAlreadyExists(v1alpha1.Resource("teams"), team.Name)
		} else if !apierrors.IsNotFound(err) {
			return err
		}
	} else {
		res, err = s.CreateTeam(ctx, team)
		if err != nil {
			return err
		}
	}

	return o.Printer.Done(teamview.Object(team), teamedit.ResourceName(team.Name)+" created", store.Where(res, s))
}

// warnMissingProvider warns when the named ProviderConfig is neither in butler-system nor
// in the team's namespace: the team may be created first, but its clusters need it.
func warnMissingProvider(ctx context.Context, errOut io.Writer, s store.Reader, team *v1alpha1.Team) {
	name := team.Spec.ProviderConfigRef.Name
	for _, ns := range []string{v1alpha1.PlatformNamespace, team.TeamNamespace()} {
		if _, err := s.GetProviderConfig(ctx, ns, name); err == nil || !apierrors.IsNotFound(err) {
			return
		}
	}
	fmt.Fprintf(errOut, "warning: ProviderConfig %q not found in %s or %s; the team's clusters cannot use it until it exists\n",
		name, v1alpha1.PlatformNamespace, team.TeamNamespace())
}
