// Package manifests is `butleradm webhook manifests`: the ValidatingWebhookConfiguration
// and the RBAC of an installation of `butleradm webhook serve`.
package manifests

import (
	"crypto/x509"
	"encoding/pem"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/printers"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
)

// Options are the flags of webhook manifests.
type Options struct {
	Service      string
	Name         string
	CABundleFile string
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "manifests",
		Short: "Print the webhook configuration and the RBAC the server needs",
		Long: `Print what installing 'butleradm webhook serve' takes, besides its Deployment, the Service
in front of it and its serving certificate:

  - a ServiceAccount (in --namespace) for the server,
  - a ClusterRole letting it get and list Teams, TenantClusters, ProviderConfigs, Users and
    IdentityProviders and create SubjectAccessReviews, and its ClusterRoleBinding,
  - the ValidatingWebhookConfiguration: vtenantcluster.kb.io (TenantCluster create,
    update), vteam.kb.io (Team create, update) and vproviderconfig.kb.io (ProviderConfig
    create, update, delete), calling port 443 of the Service --service in --namespace,
    failurePolicy Fail, sideEffects None, admission.k8s.io/v1 reviews.

--ca-bundle-file is the PEM CA that signed the serving certificate; without it caBundle is
left empty for you (or cert-manager's CA injector) to fill in. Output is YAML documents,
or a v1 List with -o json. Apply with: butleradm webhook manifests ... | kubectl apply -f -`,
		Example: `  butleradm webhook manifests --namespace butler-system --service butler-toolkit-webhook --ca-bundle-file ca.crt
  butleradm webhook manifests -n platform --service policy-webhook -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(f, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Service, "service", webhook.DefaultService, "Name of the Service in front of the server (in --namespace)")
	fl.StringVar(&o.Name, "name", webhook.DefaultName, "Name of the configuration, ServiceAccount, ClusterRole and ClusterRoleBinding")
	fl.StringVar(&o.CABundleFile, "ca-bundle-file", "", "PEM file of the CA that signed the serving certificate")
	return cmd
}

func run(f *factory.Factory, o *Options) error {
	if err := f.ValidateOutput("table", "yaml", "json"); err != nil {
		return err
	}
	in := webhook.Install{Name: o.Name, Namespace: f.Options.Namespace, Service: o.Service}
	if in.Namespace == "" {
		in.Namespace = webhook.DefaultNamespace
	}
	if err := cmdutil.RequireFlag("service", o.Service); err != nil {
		return err
	}
	if err := cmdutil.RequireFlag("name", o.Name); err != nil {
		return err
	}
	if o.CABundleFile != "" {
		ca, err := readCABundle(o.CABundleFile)
		if err != nil {
			return err
		}
		in.CABundle = ca
	} else {
		f.Errorf("note: no --ca-bundle-file: the webhooks' caBundle is empty; fill it in before the API server can call the server\n")
	}
	return Print(f.IOStreams.Out, f.Options.Output, webhook.Build(in))
}

// Print writes the manifests as YAML documents, or as a v1 List for -o json.
func Print(w io.Writer, format string, m webhook.Manifests) error {
	var items []any
	for _, obj := range m.Objects() {
		clean, err := printers.Clean(obj)
		if err != nil {
			return err
		}
		items = append(items, clean)
	}
	if format == "json" {
		return printers.PrintJSON(w, map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	}
	for i, item := range items {
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if err := printers.PrintYAML(w, item); err != nil {
			return err
		}
	}
	return nil
}

// readCABundle reads a PEM file holding at least one certificate and nothing else.
func readCABundle(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, cmdutil.UsageError("--ca-bundle-file: %v", err)
	}
	rest, n := b, 0
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, cmdutil.UsageError("--ca-bundle-file %s: holds a %s block; want only certificates", path, block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return nil, cmdutil.UsageError("--ca-bundle-file %s: certificate %d: %v", path, n+1, err)
		}
		n++
	}
	if n == 0 {
		return nil, cmdutil.UsageError("--ca-bundle-file %s: no PEM certificate in it", path)
	}
	return b, nil
}
