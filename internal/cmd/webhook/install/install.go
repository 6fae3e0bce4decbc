// Package install is `butleradm webhook install`: the whole installation of `butleradm
// webhook serve` (namespace, RBAC, certificate, Deployment, Service, PodDisruptionBudget,
// webhook configuration), printed with --dry-run or applied with server-side apply.
package install

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/buildinfo"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/redact"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Spec is what install prints: YAML documents by default (ready for kubectl apply, or a
// kustomize base), -o json|yaml a v1 List, -o name kind/name of each.
var Spec = output.Spec{Objects: true, Name: true}

// Options are what webhook install runs with: its flags and, from Complete, its
// dependencies.
type Options struct {
	// Deps are the streams (IO), the -o flags (Print), the printer (Printer) and the clock
	// the self-signed certificates start from (Now); install applies with its own client.
	factory.Deps[factory.NoStore]
	Name, Service, Image, Certs string
	Replicas                    int32
	ReapSchedule                string
	DryRun                      bool
	Timeout                     time.Duration

	// Namespace is -n; Offline is whether --manifests was given.
	Namespace string
	Offline   bool
	// RESTConfig loads the credentials the bundle is applied with (--kubeconfig,
	// --context), read only when the bundle is applied.
	RESTConfig func() (*rest.Config, error)
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install the webhook server: Deployment, Service, certificates, RBAC and configuration",
		Long: `Install 'butleradm webhook serve' in its own namespace (-n, default butler-toolkit-webhook):

  - the Namespace, the ServiceAccount, ClusterRole and ClusterRoleBinding, and a Role and
    RoleBinding for the replicas' election of a leader (a Lease, the leader's pod label),
  - the serving certificate: with --certs cert-manager (the default) a self-signed Issuer
    and a Certificate, and the CA injector's annotation on the webhook configuration; with
    --certs self-signed a CA and a serving certificate generated now (valid a year; run
    install again to rotate both) in a kubernetes.io/tls Secret, the CA in caBundle,
  - a Deployment of --replicas (2) replicas spread over nodes, non-root on a read-only root
    filesystem, probed on /healthz and /readyz, electing one leader to decide, a Service
    (443) sending reviews to the leader and a PodDisruptionBudget keeping one replica
    through drains,
  - with --reap-schedule, a CronJob running 'butleradm cluster reap -A' on that schedule
    (deleting clusters whose butler.butlerlabs.dev/expires-at has passed) under a
    ServiceAccount of its own, bound to a ClusterRole that may only list and delete
    TenantClusters and get and patch TenantControlPlanes (to thaw frozen ones),
  - the ValidatingWebhookConfiguration of 'webhook manifests', failurePolicy Fail, skipping
    the installation's own namespace so a broken install can always be repaired.

With --dry-run the objects are printed (YAML documents; -o json or -o yaml a v1 List) and
nothing is sent; with --certs self-signed that output holds the private key (a note says
so). Otherwise each is sent with server-side apply, in that order, the command waits up to
--timeout for the Deployment to be ready, and -o prints the objects without the private
key, which is then in the cluster only. deploy/webhook is the same
bundle (cert-manager) as a kustomize base.`,
		Example: `  butleradm webhook install --dry-run > webhook.yaml
  butleradm webhook install --certs self-signed --image registry.example.com/butleradm:v1.2.3
  butleradm webhook install -n policy --replicas 3 --timeout 5m`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	fl.StringVar(&o.Name, "name", webhook.DefaultName, "Name of the Deployment, configuration, ServiceAccount and RBAC objects")
	fl.StringVar(&o.Service, "service", webhook.DefaultService, "Name of the Service in front of the server")
	fl.StringVar(&o.Image, "image", DefaultImage(), "Image running butleradm")
	fl.StringVar(&o.Certs, "certs", webhook.CertsCertManager, "Serving certificate: cert-manager or self-signed")
	fl.Int32Var(&o.Replicas, "replicas", webhook.DefaultReplicas, "Replicas of the server")
	fl.BoolVar(&o.DryRun, "dry-run", false, "Print the objects; send nothing")
	fl.StringVar(&o.ReapSchedule, "reap-schedule", "", `Also install a CronJob on this cron schedule (such as "*/15 * * * *") running butleradm cluster reap -A, with its own ServiceAccount and RBAC`)
	fl.DurationVar(&o.Timeout, "timeout", 3*time.Minute, "How long to wait for the Deployment to be ready")
	_ = cmd.RegisterFlagCompletionFunc("certs", cobra.FixedCompletions([]cobra.Completion{webhook.CertsCertManager, webhook.CertsSelfSigned}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// DefaultImage is the release's image of this build's version, :latest for builds that
// are not releases.
func DefaultImage() string {
	v := buildinfo.Get().Version
	if !strings.HasPrefix(v, "v") {
		v = "latest"
	}
	return webhook.DefaultImageRepository + ":" + v
}

// Complete takes the streams, the printer, -n, the clock and the way to the API server
// from f.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Namespace, o.Offline = f.Options.Namespace, f.Offline()
	o.RESTConfig = shared.RESTConfig(f.Options.Kubeconfig, f.Options.Context)
	return nil
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	for _, fl := range []struct{ name, value string }{{"name", o.Name}, {"service", o.Service}, {"image", o.Image}} {
		if err := cmdutil.RequireFlag(fl.name, fl.value); err != nil {
			return err
		}
	}
	if o.Certs != webhook.CertsCertManager && o.Certs != webhook.CertsSelfSigned {
		return cmdutil.UsageError("--certs: %q is neither %s nor %s", o.Certs, webhook.CertsCertManager, webhook.CertsSelfSigned)
	}
	if o.Replicas < 1 {
		return cmdutil.UsageError("--replicas: %d; the server needs at least one replica", o.Replicas)
	}
	if o.Timeout <= 0 {
		return cmdutil.UsageError("--timeout: %v is not a duration to wait", o.Timeout)
	}
	if o.Offline && !o.DryRun {
		return cmdutil.UsageError("webhook install applies to a live API server; with --manifests, use --dry-run to print the bundle")
	}
	return nil
}

// Objects builds the bundle the flags describe.
func Objects(o *Options) ([]runtime.Object, error) {
	b := webhook.Bundle{
		Install:  webhook.Install{Name: o.Name, Namespace: o.Namespace, Service: o.Service},
		Image:    o.Image,
		Replicas: o.Replicas,
		Certs:    o.Certs,
		// The reaper's own identity, not the webhook's, gets the rights to delete.
		ReapSchedule: o.ReapSchedule,
	}
	if b.Namespace == "" {
		b.Namespace = webhook.DefaultInstallNamespace
	}
	if o.Certs == webhook.CertsSelfSigned {
		tls, err := webhook.GenerateTLS(b.Install, o.Now())
		if err != nil {
			return nil, err
		}
		b.TLS = tls
	}
	return b.Objects()
}

func run(ctx context.Context, o *Options) error {
	objs, err := Objects(o)
	if err != nil {
		return err
	}
	if o.DryRun {
		if o.Certs == webhook.CertsSelfSigned {
			fmt.Fprintf(o.IO.ErrOut, "note: the output holds the serving certificate's private key (a Secret): keep it out of logs and repositories\n")
		}
		d, err := shared.ObjectsDoc(objs)
		if err != nil {
			return err
		}
		return o.Printer.Print(d)
	}
	return apply(ctx, o, objs)
}

func apply(ctx context.Context, o *Options, objs []runtime.Object) error {
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	cfg.Timeout = 30 * time.Second // each request; the wait has --timeout
	a, err := webhook.NewApplier(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	applied, err := a.Apply(ctx, objs, false)
	for _, u := range applied {
		fmt.Fprintf(o.IO.ErrOut, "%s\n", inert.Line(strings.ToLower(u.GetKind())+"/"+u.GetName()+" applied"))
	}
	if err != nil {
		return err
	}
	ns := applied[0].GetName() // the Namespace comes first
	if err := a.WaitReady(ctx, ns, o.Name, 2*time.Second); err != nil {
		return err
	}
	d, err := shared.ObjectsDoc(withoutPrivateKeys(objs))
	if err != nil {
		return err
	}
	d.Text = func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "webhook %s installed in %s: %d replicas ready on %s\n", inert.Text(o.Name), inert.Text(ns), o.Replicas, redact.URL(cfg.Host))
		return err
	}
	return o.Printer.Print(d)
}

// withoutPrivateKeys is what an installation prints once it has been applied: the
// objects as sent, but a Secret without its private key (tls.key), which is in the
// cluster and nowhere else. Only --dry-run prints the key, with a note, since its output
// is what gets applied.
func withoutPrivateKeys(objs []runtime.Object) []runtime.Object {
	out := make([]runtime.Object, len(objs))
	for i, o := range objs {
		s, ok := o.(*corev1.Secret)
		if !ok {
			out[i] = o
			continue
		}
		s = s.DeepCopy()
		delete(s.Data, corev1.TLSPrivateKeyKey)
		delete(s.StringData, corev1.TLSPrivateKeyKey)
		out[i] = s
	}
	return out
}
