// Package manifests is `butleradm webhook manifests`: the ValidatingWebhookConfiguration
// and the RBAC of an installation of `butleradm webhook serve`.
package manifests

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// maxCABundle bounds --ca-bundle-file: a few PEM certificates, not data.
const maxCABundle = 1 << 20

// Spec is what webhook manifests prints: by default YAML documents, ready for kubectl
// apply or a GitOps repository; -o json|yaml a v1 List of the same objects, as every
// command prints several objects; -o name kind.group/name of each.
var Spec = output.Spec{Objects: true, Name: true}

// Options are what webhook manifests runs with: its flags and, from Complete, its
// dependencies.
type Options struct {
	// Deps are the streams (IO), the -o flags (Print) and the printer (Printer); manifests
	// reads no store.
	factory.Deps[factory.NoStore]
	Service      string
	Name         string
	CABundleFile string

	// Namespace is -n.
	Namespace string
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
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
or a v1 List with -o json or -o yaml. Apply with: butleradm webhook manifests ... | kubectl apply -f -`,
		Example: `  butleradm webhook manifests --namespace butler-system --service butler-toolkit-webhook --ca-bundle-file ca.crt
  butleradm webhook manifests -n platform --service policy-webhook -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	fl.StringVar(&o.Service, "service", webhook.DefaultService, "Name of the Service in front of the server (in --namespace)")
	fl.StringVar(&o.Name, "name", webhook.DefaultName, "Name of the configuration, ServiceAccount, ClusterRole and ClusterRoleBinding")
	fl.StringVar(&o.CABundleFile, "ca-bundle-file", "", "PEM file of the CA that signed the serving certificate")
	return cmd
}

// Complete takes the streams, the printer and -n from f.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Namespace = f.Options.Namespace
	return nil
}

// Validate checks -o and the flags before anything is read.
func (o *Options) Validate() error {
	if err := cmdutil.RequireFlag("service", o.Service); err != nil {
		return err
	}
	return cmdutil.RequireFlag("name", o.Name)
}

func run(_ context.Context, o *Options) error {
	in := webhook.Install{Name: o.Name, Namespace: o.Namespace, Service: o.Service}
	if in.Namespace == "" {
		in.Namespace = webhook.DefaultNamespace
	}
	if o.CABundleFile != "" {
		ca, err := readCABundle(o.CABundleFile)
		if err != nil {
			return err
		}
		in.CABundle = ca
	} else {
		fmt.Fprintf(o.IO.ErrOut, "note: no --ca-bundle-file: the webhooks' caBundle is empty; fill it in before the API server can call the server\n")
	}
	d, err := doc(webhook.Build(in))
	if err != nil {
		return err
	}
	return o.Printer.Print(d)
}

// doc is the manifests for the printer (shared.ObjectsDoc).
func doc(m webhook.Manifests) (output.Doc, error) {
	var objs []runtime.Object
	for _, obj := range m.Objects() {
		ro, ok := obj.(runtime.Object)
		if !ok {
			return output.Doc{}, fmt.Errorf("internal error: %T is not an API object", obj)
		}
		objs = append(objs, ro)
	}
	return shared.ObjectsDoc(objs)
}

// readCABundle reads a PEM file holding at least one certificate and nothing else.
func readCABundle(path string) ([]byte, error) {
	b, err := fileio.ReadFile(path, maxCABundle)
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
