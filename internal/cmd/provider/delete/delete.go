// Package delete is `butleradm provider delete`: remove a ProviderConfig no TenantCluster
// uses, after a confirmation; its credentials Secret only when asked.
package delete

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/prompt"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec is what provider delete prints: a line per object deleted for people; for programs
// the ProviderConfig deleted, or a List of it and its Secret (metadata only) when that went
// too (docs/output.md).
var Spec = output.Spec{Objects: true, Name: true}

// Store is what provider delete reads and writes: the provider, its team, who asks, the
// clusters that use it and the providers that share its Secret (providerutil.Store), and the
// deletes (store.Providers).
type Store interface {
	providerutil.Store
	store.Providers
}

var _ Store = store.Store(nil)

// Options are what provider delete runs with: its flags and argument and, from Complete,
// its dependencies.
type Options struct {
	// FindOptions are the name, --team, -n and the dependencies, from Complete.
	providerutil.FindOptions[Store]

	Yes               bool
	DeleteCredentials bool
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
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
	}
	fl := cmd.Flags()
	o.TeamFlag(cmd)
	fl.BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation")
	fl.BoolVar(&o.Yes, "force", false, "Same as --yes")
	fl.BoolVar(&o.DeleteCredentials, "delete-credentials", false, "Also delete the credentials Secret, unless another ProviderConfig references it")
	o.Print = f.NamedCommand(cmd, "a ProviderConfig NAME", Spec, func(cmd *cobra.Command, name string) error {
		o.Name = name
		return factory.Run(cmd, []string{name}, f, o, runF, run)
	})
	factory.AddDryRun(cmd, f)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	s, pc, err := o.Provider(ctx)
	if err != nil {
		return err
	}
	if err := providerutil.AuthorizeByScope(ctx, s, pc, "delete"); err != nil {
		return err
	}
	if err := unused(ctx, o.IO.ErrOut, s, pc); err != nil {
		return err
	}
	deleteSecret, note, err := o.secretGoes(ctx, s, pc)
	if err != nil {
		return err
	}
	if err := o.confirm(pc); err != nil {
		return err
	}
	res, err := s.DeleteProviderConfig(ctx, pc.Namespace, pc.Name)
	if err != nil {
		return err
	}
	d := &deleted{p: o.Printer}
	d.add(providerutil.WithTypeMeta(*pc), providerutil.ResourceName(pc.Name), store.Where(res, s))
	if note != "" {
		fmt.Fprintf(o.IO.ErrOut, "note: %s\n", note)
	}
	if deleteSecret {
		err = d.secret(ctx, o.IO.ErrOut, s, pc)
	}
	if perr := o.Printer.Print(d.doc()); perr != nil && err == nil {
		err = perr
	}
	return err
}

// unused is the webhook's guard, on every TenantCluster in every namespace; every user is
// named on stderr.
func unused(ctx context.Context, errOut io.Writer, s store.Reader, pc *v1alpha1.ProviderConfig) error {
	clusters, err := s.ListClusters(ctx, "")
	if err != nil {
		return fmt.Errorf("cannot check which TenantClusters use ProviderConfig %q: %w", pc.Name, err)
	}
	if ferr := policy.ProviderDeleteGuard(pc, clusters); ferr != nil {
		users := providerutil.ClustersUsing(pc, clusters)
		fmt.Fprintf(errOut, "%d TenantCluster(s) use ProviderConfig %s/%s: %s\n", len(users), pc.Namespace, pc.Name, strings.Join(users, ", "))
		return cmdutil.DeniedError(ferr)
	}
	return nil
}

// secretGoes decides whether the credentials Secret is deleted too, or the note that says
// why not (said once the ProviderConfig is gone).
func (o *Options) secretGoes(ctx context.Context, s store.Reader, pc *v1alpha1.ProviderConfig) (bool, string, error) {
	secNS, secName := providerutil.SecretRef(pc)
	if !o.DeleteCredentials {
		return false, fmt.Sprintf("Secret %s/%s is kept; pass --delete-credentials to delete it too", secNS, secName), nil
	}
	others, err := sharers(ctx, s, pc)
	if err != nil {
		return false, "", err
	}
	if len(others) > 0 {
		return false, fmt.Sprintf("Secret %s/%s is kept: ProviderConfig %s also references it", secNS, secName, strings.Join(others, ", ")), nil
	}
	return true, "", nil
}

// confirm asks to type the name on a terminal; without one --yes is required.
func (o *Options) confirm(pc *v1alpha1.ProviderConfig) error {
	if o.Yes {
		return nil
	}
	pr := prompt.New(o.IO)
	if !pr.CanPrompt() {
		return cmdutil.UsageError("deleting ProviderConfig %q needs confirmation: pass --yes (there is no terminal to ask on)", pc.Name)
	}
	return pr.TypeName(fmt.Sprintf("Delete ProviderConfig %s/%s? Type its name to confirm: ", pc.Namespace, pc.Name), "deletion", pc.Name)
}

// deleted collects what was deleted, printed as one Doc once the work is over (or has
// failed half-way: what went is still reported).
type deleted struct {
	p     *output.Printer
	items []output.Item
	lines []string
}

func (d *deleted) add(obj runtime.Object, name, location string) {
	d.items = append(d.items, output.Item{Object: obj, Name: name})
	d.lines = append(d.lines, d.p.DoneLine(name+" deleted", location))
}

// secret deletes pc's credentials Secret; one already gone is a note, not an error.
func (d *deleted) secret(ctx context.Context, errOut io.Writer, s Store, pc *v1alpha1.ProviderConfig) error {
	secNS, secName := providerutil.SecretRef(pc)
	sres, err := s.DeleteSecret(ctx, secNS, secName)
	switch {
	case apierrors.IsNotFound(err):
		fmt.Fprintf(errOut, "note: Secret %s/%s was not there\n", secNS, secName)
		return nil
	case err != nil:
		return fmt.Errorf("ProviderConfig %q deleted, but its Secret %s/%s was not: %w", pc.Name, secNS, secName, err)
	}
	sec := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": secName, "namespace": secNS},
	}}
	d.add(sec, providerutil.SecretResourceName(secName), store.Where(sres, s))
	return nil
}

func (d *deleted) doc() output.Doc {
	return output.Doc{
		One:   len(d.items) == 1,
		Items: d.items,
		Text: func(w io.Writer) error {
			_, err := fmt.Fprintln(w, strings.Join(d.lines, "\n"))
			return err
		},
	}
}

// sharers are the other ProviderConfigs whose credentialsRef is pc's Secret.
func sharers(ctx context.Context, s store.Reader, pc *v1alpha1.ProviderConfig) ([]string, error) {
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
