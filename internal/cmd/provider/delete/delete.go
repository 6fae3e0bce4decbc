// Package delete is `butleradm provider delete`: remove a ProviderConfig no TenantCluster
// uses, after a confirmation; its credentials Secret only when asked.
package delete

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/prompt"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Options are the flags and arguments of provider delete.
type Options struct {
	Name              string
	Team              string
	Yes               bool
	DeleteCredentials bool
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:     "delete NAME [--team TEAM | -n NAMESPACE] [--yes] [--delete-credentials]",
		Aliases: []string{"rm"},
		Short:   "Delete a ProviderConfig that no TenantCluster uses",
		Long: `Delete a ProviderConfig. Like the server's ProviderConfig webhook, it is refused while any
TenantCluster in any namespace references it (a reference without a namespace means
butler-system), with the server's message, and exit 4; every such cluster is listed.

On a terminal you are asked to type the name to confirm; without one (scripts, CI) pass
--yes. The credentials Secret is kept (it may be shared, or managed by another tool);
--delete-credentials deletes it too, unless another ProviderConfig references it.

Working on manifests, only platform admins (and, for a team-scoped provider, the team's
admins) may delete; the ProviderConfig's document is removed from its file.`,
		Example: `  butleradm provider delete aws-us-east --yes
  butleradm provider delete azure-platform-team --team platform-team --yes --delete-credentials`,
		Args: cmdutil.ExactArgs(1, "a ProviderConfig NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return run(cmd.Context(), f, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Team, "team", "", "Look in this team's namespace, then in butler-system")
	fl.BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation")
	fl.BoolVar(&o.Yes, "force", false, "Same as --yes")
	fl.BoolVar(&o.DeleteCredentials, "delete-credentials", false, "Also delete the credentials Secret, unless another ProviderConfig references it")
	return cmd
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
	if err := f.ValidateOutput("table", "name"); err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	pc, err := providerutil.Find(ctx, s, o.Name, f.Options.Namespace, o.Team)
	if err != nil {
		return err
	}
	team, err := scopeTeam(ctx, s, pc)
	if err != nil {
		return err
	}
	if err := providerutil.Authorize(ctx, s, pc, team, "delete"); err != nil {
		return err
	}
	w, err := providerutil.Writer(s)
	if err != nil {
		return err
	}

	// The webhook's guard, on every TenantCluster in every namespace.
	clusters, err := s.ListClusters(ctx, "")
	if err != nil {
		return fmt.Errorf("cannot check which TenantClusters use ProviderConfig %q: %w", pc.Name, err)
	}
	if ferr := policy.ProviderDeleteGuard(pc, clusters); ferr != nil {
		users := providerutil.ClustersUsing(pc, clusters)
		f.Errorf("%d TenantCluster(s) use ProviderConfig %s/%s: %s\n", len(users), pc.Namespace, pc.Name, strings.Join(users, ", "))
		return cmdutil.DeniedError(ferr)
	}

	secNS, secName := providerutil.SecretRef(pc)
	deleteSecret := false
	if o.DeleteCredentials {
		others, err := sharers(ctx, s, pc)
		if err != nil {
			return err
		}
		if len(others) > 0 {
			f.Errorf("note: Secret %s/%s is kept: ProviderConfig %s also references it\n", secNS, secName, strings.Join(others, ", "))
		} else {
			deleteSecret = true
		}
	}

	pr := prompt.New(f.IOStreams)
	if !o.Yes && !pr.CanPrompt() {
		return cmdutil.UsageError("deleting ProviderConfig %q needs confirmation: pass --yes (there is no terminal to ask on)", pc.Name)
	}
	if !o.Yes {
		if err := pr.TypeName(fmt.Sprintf("Delete ProviderConfig %s/%s? Type its name to confirm: ", pc.Namespace, pc.Name), "deletion", pc.Name); err != nil {
			return err
		}
	}

	res, err := w.DeleteProviderConfig(ctx, pc.Namespace, pc.Name)
	if err != nil {
		return err
	}
	out := f.IOStreams.Out
	if f.Options.Output == "name" {
		fmt.Fprintln(out, providerutil.ResourceName(pc.Name))
	} else {
		providerutil.Done(out, s, providerutil.ResourceName(pc.Name)+" deleted", res)
	}
	if !deleteSecret {
		if !o.DeleteCredentials {
			f.Errorf("note: Secret %s/%s is kept; pass --delete-credentials to delete it too\n", secNS, secName)
		}
		return nil
	}
	sres, err := w.DeleteSecret(ctx, secNS, secName)
	switch {
	case apierrors.IsNotFound(err):
		f.Errorf("note: Secret %s/%s was not there\n", secNS, secName)
		return nil
	case err != nil:
		return fmt.Errorf("ProviderConfig %q deleted, but its Secret %s/%s was not: %w", pc.Name, secNS, secName, err)
	}
	if f.Options.Output == "name" {
		fmt.Fprintln(out, providerutil.SecretResourceName(secName))
	} else {
		providerutil.Done(out, s, providerutil.SecretResourceName(secName)+" deleted", sres)
	}
	return nil
}

// scopeTeam is the team of a team-scoped ProviderConfig (nil for platform scope). A team
// that no longer exists is no reason to keep its provider: nil then too.
func scopeTeam(ctx context.Context, s store.Store, pc *v1alpha1.ProviderConfig) (*v1alpha1.Team, error) {
	if pc.ScopeType() != v1alpha1.ScopeTeam || pc.Spec.Scope.TeamRef == nil {
		return nil, nil
	}
	t, err := s.GetTeam(ctx, pc.Spec.Scope.TeamRef.Name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return t, err
}

// sharers are the other ProviderConfigs whose credentialsRef is pc's Secret.
func sharers(ctx context.Context, s store.Store, pc *v1alpha1.ProviderConfig) ([]string, error) {
	all, err := s.ListProviderConfigs(ctx, "")
	if err != nil {
		return nil, err
	}
	ns, name := providerutil.SecretRef(pc)
	var out []string
	for i := range all {
		p := &all[i]
		if p.Namespace == pc.Namespace && p.Name == pc.Name {
			continue
		}
		if pns, pname := providerutil.SecretRef(p); pns == ns && pname == name {
			out = append(out, p.Namespace+"/"+p.Name)
		}
	}
	return out, nil
}
