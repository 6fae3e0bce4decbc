// Package serve is `butleradm webhook serve`: the validating admission webhook server.
package serve

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/redact"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Options are what webhook serve runs with: its flags and, from Complete, its
// dependencies.
type Options struct {
	// Deps are the streams (IO) and the clock the leader's identity is stamped with (Now);
	// serve prints nothing through -o and reads with its own client, not the store.
	factory.Deps[factory.NoStore]
	CertDir         string
	Port            int
	BindAddress     string
	Audit           bool
	LogFormat       string
	LogLevel        string
	ShutdownTimeout time.Duration
	LeaderElect     bool
	LeaseNamespace  string
	LeaseName       string
	LeaseDuration   time.Duration
	RenewDeadline   time.Duration
	// RulesOff are rules beyond Butler's switched off; AsButler switches off all of them.
	RulesOff []string
	AsButler bool

	// Offline is whether --manifests was given; Impersonating whether --as or --as-group
	// was typed (BUTLER_AS exported for work on manifests is no impersonation live).
	Offline, Impersonating bool
	// RESTConfig loads the server's own credentials (--kubeconfig, --context).
	RESTConfig func() (*rest.Config, error)
}

// long is the help of serve: what it reads, serves and refuses.
var long = `Run the validating admission webhook server over HTTPS.

The serving certificate and key are tls.crt and tls.key in --cert-dir (a mounted
kubernetes.io/tls Secret, for example); they are read again whenever they change, so a
renewed certificate is picked up without a restart.

The server reads Teams, TenantClusters, ProviderConfigs, Users and IdentityProviders, and
asks SubjectAccessReviews, through the API server with its own credentials: the kubeconfig
(--kubeconfig, $KUBECONFIG, ~/.kube/config) or, in a pod, its ServiceAccount. Teams are
read fresh on every review; the other kinds are watched into memory (TenantClusters reduced
to what the rules count), and the server is not ready until those caches have synced.
The reviews of one namespace's TenantClusters are decided one at a time, counting what the
server admitted before its cache shows it, so concurrent creates never pass a cap together.
The RBAC it needs is printed by 'butleradm webhook manifests'.

Paths: /validate-butler-butlerlabs-dev-v1alpha1-tenantcluster, -team and -providerconfig
(admission.k8s.io/v1 AdmissionReviews), /healthz and /readyz (ready while serving with
synced caches, not while shutting down). A refusal is a 403 carrying the rule's
message; a failed read refuses the request with the error (fail closed); a malformed
review gets HTTP 400. Every review is answered before the API server's timeout (its
?timeout=, at most 30s, less a tenth), with the reason when no decision could be made by
then. Request bodies held at once are bounded across connections, counted as their bytes
arrive, and a body must arrive by its review's deadline; past the bounds a request is
refused at once (503, Retry-After).

One structured log line per review (log/slog) goes to standard error. On SIGTERM or
SIGINT the server stops accepting connections, reports not ready and waits up to
--shutdown-timeout for the reviews in flight.

With --leader-elect, replicas elect one leader through a Lease (--lease-namespace, default
$POD_NAMESPACE; --lease-name); only the leader decides TenantCluster reviews, and it labels
its pod (POD_NAME) ` + webhook.LeaderLabel + `=true for the Service to select. The
others keep their caches warm and refuse such a review, failing closed, should one reach
them. A new leader lists the clusters again before deciding. --lease-duration minus
--renew-deadline must exceed the webhook's timeoutSeconds: it is the time every create the
old leader admitted has to be stored before the new leader counts.

--audit evaluates every review and logs what would be refused, but allows everything:
for switching enforcement on in a cluster whose existing objects may not pass.

Some rules go beyond Butler's own webhooks (team restrictions on versions, providers and
addons; updates that change nothing admitted unchecked; who may change a Team judged on
the Team as it was). Each is on by default and says so in its message; --without-rule ID
switches one off, --as-butler all of them, so that the webhook answers exactly as Butler.`

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "serve --cert-dir DIR",
		Short: "Run the validating admission webhook server",
		Long:  long,
		Example: `  butleradm webhook serve --cert-dir /tls --port 9443
  butleradm webhook serve --cert-dir ./certs --kubeconfig ~/.kube/config --log-format text
  butleradm webhook serve --cert-dir /tls --audit
  butleradm webhook serve --cert-dir /tls --without-rule team-addons
  butleradm webhook serve --cert-dir /tls --as-butler`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.CertDir, "cert-dir", "", "Folder holding the serving certificate (tls.crt) and key (tls.key)")
	fl.IntVar(&o.Port, "port", 9443, "Port to serve HTTPS on")
	fl.StringVar(&o.BindAddress, "bind-address", "", "Address to listen on (default: every interface)")
	fl.BoolVar(&o.Audit, "audit", false, "Allow every request, logging what would be refused")
	fl.StringVar(&o.LogFormat, "log-format", "json", "Log format: json or text")
	fl.StringVar(&o.LogLevel, "log-level", "info", "Log level: debug, info, warn or error")
	fl.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", 10*time.Second, "How long to wait for reviews in flight on shutdown")
	fl.BoolVar(&o.LeaderElect, "leader-elect", false, "Elect one replica through a Lease to decide TenantCluster reviews")
	fl.StringVar(&o.LeaseNamespace, "lease-namespace", "", "Namespace of the Lease (default: $POD_NAMESPACE)")
	fl.StringVar(&o.LeaseName, "lease-name", webhook.DefaultName, "Name of the Lease")
	fl.DurationVar(&o.LeaseDuration, "lease-duration", webhook.DefaultLeaseDuration, "How long a Lease not renewed lasts before another replica takes it")
	fl.DurationVar(&o.RenewDeadline, "renew-deadline", webhook.DefaultRenewDeadline, "How old the leader's last renewal may be while it still decides")
	fl.StringSliceVar(&o.RulesOff, "without-rule", nil, "Switch off a rule beyond Butler's: "+strings.Join(policy.BeyondButlerRules(), ", ")+" (repeatable)")
	fl.BoolVar(&o.AsButler, "as-butler", false, "Switch off every rule beyond Butler's: answer exactly as Butler does")
	_ = cmd.RegisterFlagCompletionFunc("cert-dir", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
	_ = cmd.RegisterFlagCompletionFunc("log-format", cobra.FixedCompletions([]cobra.Completion{"json", "text"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("log-level", cobra.FixedCompletions([]cobra.Completion{"debug", "info", "warn", "error"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete takes the streams, the clock, where the global flags came from and the way to
// the API server from f.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Offline = f.Offline()
	o.Impersonating = f.Options.AsSource == cmdutil.SourceCommandLine
	o.RESTConfig = shared.RESTConfig(f.Options.Kubeconfig, f.Options.Context)
	return nil
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if o.Offline {
		return cmdutil.UsageError("webhook serve answers a live API server; --manifests does not apply")
	}
	if o.Impersonating {
		return cmdutil.UsageError("webhook serve reads with its own credentials; --as and --as-group do not apply")
	}
	if err := cmdutil.RequireFlag("cert-dir", o.CertDir); err != nil {
		return err
	}
	if o.Port < 1 || o.Port > 65535 {
		return cmdutil.UsageError("--port: %d is not a port (1-65535)", o.Port)
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	log, err := NewLogger(o.IO.ErrOut, o.LogFormat, o.LogLevel)
	if err != nil {
		return err
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	reader, err := webhook.NewCachedReader(cfg, 0)
	if err != nil {
		return err
	}
	srv, err := webhook.New(webhook.Options{
		CertDir: o.CertDir, Reader: reader, Logger: log, Audit: o.Audit, ShutdownTimeout: o.ShutdownTimeout,
		RulesOff: o.rulesOff(),
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	addr := net.JoinHostPort(o.BindAddress, strconv.Itoa(o.Port))
	log.Info("starting", "address", addr, "apiServer", redact.URL(cfg.Host), "certDir", o.CertDir)
	if !o.LeaderElect {
		return srv.ListenAndServe(ctx, addr)
	}
	el, err := election(o, reader, log)
	if err != nil {
		return err
	}
	reader.DecideOnlyWhen(el.Leading)
	// The Lease is released only after the server has stopped and answered every review
	// in flight, so the successor's first list holds whatever this one admitted.
	ectx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- el.Run(ectx, cfg) }()
	serr := srv.ListenAndServe(ctx, addr)
	cancel()
	if eerr := <-errc; serr == nil {
		serr = eerr
	}
	return serr
}

// election is --leader-elect's Election: this pod (POD_NAME, else the host name) in the
// Lease's namespace.
func election(o *Options, reader *webhook.CachedReader, log *slog.Logger) (*webhook.Election, error) {
	ns := o.LeaseNamespace
	if ns == "" {
		ns = os.Getenv("POD_NAMESPACE")
	}
	if ns == "" {
		return nil, cmdutil.UsageError("--leader-elect: --lease-namespace is required outside a pod (no $POD_NAMESPACE)")
	}
	if o.LeaseDuration <= o.RenewDeadline {
		return nil, cmdutil.UsageError("--lease-duration (%s) must be longer than --renew-deadline (%s)", o.LeaseDuration, o.RenewDeadline)
	}
	pod := os.Getenv("POD_NAME")
	id := pod
	if id == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, err
		}
		id = h
	}
	id += "_" + strconv.FormatInt(o.Now().UnixNano(), 36)
	return &webhook.Election{
		Namespace: ns, Name: o.LeaseName, Identity: id, PodName: pod,
		LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline,
		Reader: reader, Log: log,
	}, nil
}

// NewLogger is the server's structured logger on w.
func NewLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, cmdutil.UsageError("--log-level: %q is not one of debug, info, warn, error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(format) {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, cmdutil.UsageError("--log-format: %q is not json or text", format)
}

// rulesOff are the rules beyond Butler's to switch off.
func (o *Options) rulesOff() []string {
	if o.AsButler {
		return []string{"all"}
	}
	return o.RulesOff
}
