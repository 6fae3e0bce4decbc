// Package rotatecredentials is `butleradm provider rotate-credentials`: replace the data of
// a ProviderConfig's credentials Secret, after checking the new keys.
package rotatecredentials

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Store is what rotate-credentials reads and writes: the provider, its team and who asks
// (providerutil.Store), the Secret's key names and the one write of its data.
type Store interface {
	providerutil.Store
	SecretKeys(ctx context.Context, namespace, name string) ([]string, error)
	ReplaceSecretData(ctx context.Context, namespace, name string, data map[string][]byte) (store.Result, error)
}

var _ Store = store.Store(nil)

// Options are what provider rotate-credentials runs with: its flags and argument and,
// from Complete, its dependencies.
type Options struct {
	// FindOptions are the name, --team, -n and the dependencies, from Complete.
	providerutil.FindOptions[Store]

	Creds providerutil.CredentialFlags
	// Manifests are --manifests, for where a credentials file may not go.
	Manifests []string
}

// Spec is what rotate-credentials prints: a line for people (a dry run: the Secret as YAML,
// values redacted); for programs the Secret, values redacted (docs/output.md).
var Spec = output.Spec{Objects: true, Name: true}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "rotate-credentials NAME (--credentials-file FILE | --credentials-env-file FILE | --credentials-stdin)",
		Short: "Replace the credentials of a ProviderConfig",
		Long: `Replace the data of the Secret a ProviderConfig's credentialsRef names with new credentials:
keys not in the new credentials are removed. The new keys are checked against what the
provider needs first (exit 2 naming the missing keys); the values are never printed.

Credentials are read as by provider create: --credentials-file (YAML or JSON map, or a Secret
manifest), --credentials-env-file (KEY=VALUE lines), --credentials-stdin, and
--credentials-from-file KEY=FILE. A credentials file that group or others may read is
warned about.

Working on manifests, the Secret's document is edited in place (data base64-encoded); only
platform admins (and, for a team-scoped provider, the team's admins) may rotate.`,
		Example: `  butleradm provider rotate-credentials aws-us-east --credentials-env-file aws.env
  butleradm provider rotate-credentials harvester-prod --credentials-from-file kubeconfig=harvester.kubeconfig`,
	}
	fl := cmd.Flags()
	o.TeamFlag(cmd)
	factory.AddDryRun(cmd, f)
	o.Creds.AddFlags(fl)
	o.Print = f.NamedCommand(cmd, "a ProviderConfig NAME", Spec, func(cmd *cobra.Command, name string) error {
		o.Name = name
		return factory.Run(cmd, []string{name}, f, o, runF, run)
	})
	return cmd
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Manifests = f.Options.Manifests
	return nil
}

// Validate checks the credential flags before anything is read; -o is checked by the named
// command's wiring.
func (o *Options) Validate() error {
	if !o.Creds.Given() {
		return cmdutil.UsageError("new credentials are required: --credentials-file, --credentials-env-file, --credentials-stdin or --credentials-from-file")
	}
	return o.Creds.Check()
}

func run(ctx context.Context, o *Options) error {
	s, pc, err := o.Provider(ctx)
	if err != nil {
		return err
	}
	creds, err := o.Creds.Read(o.IO.In, func(msg string) { fmt.Fprint(o.IO.ErrOut, msg) })
	if err != nil {
		return err
	}
	if err := policy.ValidateCredentials(pc.Spec.Provider, creds.Keys()); err != nil {
		return cmdutil.UsageError("%s: %v", creds.Source, err)
	}
	if s.Kind() != store.Live {
		return o.offline(ctx, s, pc, creds)
	}
	old, err := prepare(ctx, s, pc)
	if err != nil {
		return err
	}
	secNS, secName := providerutil.SecretRef(pc)
	secret := providerutil.RedactedSecret(providerutil.NewSecret(pc, creds))
	p := o.Printer
	if o.DryRun.Client() {
		d := output.Doc{One: true, Items: []output.Item{{Object: secret}}}
		d.Text = d.YAMLDocuments
		if err := p.Print(d); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "dry run: Secret %s/%s not changed\n", secNS, secName)
		return nil
	}
	res, err := s.ReplaceSecretData(ctx, secNS, secName, creds.Data())
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("%s credentials replaced (keys: %s)", providerutil.SecretResourceName(secName), strings.Join(creds.Keys(), ", "))
	if removed := minus(old, creds.Keys()); len(removed) > 0 {
		msg += fmt.Sprintf("; removed keys: %s", strings.Join(removed, ", "))
	}
	return p.Done(secret, msg, store.Where(res, s))
}

// prepare checks who asks may rotate pc's credentials and that its Secret exists; it
// returns the Secret's current keys.
func prepare(ctx context.Context, s Store, pc *v1alpha1.ProviderConfig) ([]string, error) {
	if err := providerutil.AuthorizeByScope(ctx, s, pc, "rotate the credentials of"); err != nil {
		return nil, err
	}
	secNS, secName := providerutil.SecretRef(pc)
	old, err := s.SecretKeys(ctx, secNS, secName)
	if apierrors.IsNotFound(err) {
		where := "on the cluster"
		if s.Kind() != store.Live {
			where = "in the manifests"
		}
		return nil, cmdutil.NotFoundError("Secret %s/%s, the credentials of ProviderConfig %q, not found %s: nothing to rotate (provider create makes it)", secNS, secName, pc.Name, where)
	}
	return old, err
}

// offline rotates on manifests: the tree keeps no plain Secret, so the new one goes to the
// file --credentials-out names, to seal or encrypt; a dry run prints it redacted.
func (o *Options) offline(ctx context.Context, s providerutil.Store, pc *v1alpha1.ProviderConfig, creds *providerutil.Credentials) error {
	if err := providerutil.AuthorizeByScope(ctx, s, pc, "rotate the credentials of"); err != nil {
		return err
	}
	ios := o.IO
	secret := providerutil.NewSecret(pc, creds)
	p := o.Printer
	if o.DryRun.Client() {
		d := output.Doc{One: true, Items: []output.Item{{Object: providerutil.RedactedSecret(secret)}}}
		d.Text = d.YAMLDocuments
		if err := p.Print(d); err != nil {
			return err
		}
		fmt.Fprintf(ios.ErrOut, "dry run: Secret %s/%s not changed\n", secret.Namespace, secret.Name)
		return nil
	}
	if o.Creds.Out == "" {
		return providerutil.NeedOut()
	}
	note, err := providerutil.WriteOut(o.Creds.Out, o.Manifests, secret)
	if err != nil {
		return err
	}
	fmt.Fprintf(ios.ErrOut, "%s", note)
	return p.Done(providerutil.RedactedSecret(secret),
		fmt.Sprintf("%s credentials written to %s (keys: %s)", providerutil.SecretResourceName(secret.Name), o.Creds.Out, strings.Join(creds.Keys(), ", ")), "")
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, k := range b {
		in[k] = true
	}
	var out []string
	for _, k := range a {
		if !in[k] {
			out = append(out, k)
		}
	}
	return out
}
