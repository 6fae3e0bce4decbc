package testenv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
)

// Option changes how the shared control plane starts. The first Start of a test binary
// starts it, so every Start in one test binary should pass the same options; a later
// Start asking for the webhook of a control plane started without it fails.
type Option func(*options)

type options struct {
	webhook bool
}

// WithWebhook registers Butler's validating webhooks (internal/webhook, the
// ValidatingWebhookConfiguration of `butleradm webhook manifests`) with the control plane,
// served by an in-process server on 127.0.0.1 that is listening before Start returns. The
// server reads with credentials of its own (WebhookUser, bound to the ClusterRole of the
// same manifests), so a missing permission there fails the tests.
//
// The webhook starts dormant (every review answered allowed, unevaluated: no reads, so
// bulk fixtures cost nothing extra), as on a cluster whose webhooks are switched off, so
// fixtures that predate the rules load; EnforceWebhook(true) switches it on.
func WithWebhook() Option { return func(o *options) { o.webhook = true } }

// WebhookInstall is the installation the harness registers: the manifests' defaults, in
// the platform namespace.
var WebhookInstall = webhook.Install{Namespace: PlatformNamespace, Service: webhook.DefaultService}

// WebhookUser is the identity the webhook server reads with: the user name the API server
// gives its ServiceAccount (WebhookInstall names none, so the manifests' default).
var WebhookUser = "system:serviceaccount:" + WebhookInstall.Namespace + ":" + webhook.DefaultName

// webhookServer is the running in-process server.
type webhookServer struct {
	srv    *webhook.Server
	reader *webhook.CachedReader
	cancel context.CancelFunc
	done   chan error
	log    string
	config *admissionregistrationv1.ValidatingWebhookConfiguration // as registered
}

// webhookInstallOptions registers the configuration `butleradm webhook manifests` prints;
// envtest points its service references at 127.0.0.1 and generates the serving
// certificate.
func webhookInstallOptions() envtest.WebhookInstallOptions {
	return envtest.WebhookInstallOptions{
		ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{webhook.Configuration(WebhookInstall)},
		LocalServingHost:   "127.0.0.1",
	}
}

// startWebhook grants the webhook's identity the manifests' RBAC, and starts the server on
// the address and certificate envtest prepared.
func startWebhook(e *Env) error {
	m := webhook.Build(WebhookInstall)
	ctx := context.Background()
	for _, obj := range []client.Object{m.ServiceAccount, m.ClusterRole, m.ClusterRoleBinding} {
		if err := e.Client.Create(ctx, obj); err != nil {
			return fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
		}
	}
	au, err := e.env.AddUser(envtest.User{Name: WebhookUser}, &rest.Config{QPS: webhook.ClientQPS, Burst: webhook.ClientBurst})
	if err != nil {
		return fmt.Errorf("adding the webhook's user: %w", err)
	}
	reader, err := webhook.NewCachedReader(au.Config(), 0)
	if err != nil {
		return err
	}
	logPath := filepath.Join(e.Dir, "webhook.log")
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	wio := &e.env.WebhookInstallOptions
	srv, err := webhook.New(webhook.Options{
		CertDir: wio.LocalServingCertDir,
		Reader:  reader,
		Logger:  slog.New(slog.NewJSONHandler(lf, nil)),
	})
	if err != nil {
		_ = lf.Close()
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort)))
	if err != nil {
		_ = lf.Close()
		return fmt.Errorf("webhook server: %w", err)
	}
	srv.Handler().SetMode(webhook.Dormant)
	sctx, cancel := context.WithCancel(context.Background())
	ws := &webhookServer{srv: srv, reader: reader, cancel: cancel, done: make(chan error, 1), log: logPath}
	go func() {
		err := srv.Serve(sctx, ln)
		_ = lf.Close()
		ws.done <- err
	}()
	e.webhook = ws
	if err := e.saveWebhookConfiguration(ctx); err != nil {
		return err
	}
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	if !reader.WaitForSync(wctx) {
		return errors.New("webhook server: its caches did not sync within a minute")
	}
	return nil
}

// stopWebhook stops the server, waiting for reviews in flight.
func (e *Env) stopWebhook() error {
	if e.webhook == nil {
		return nil
	}
	e.webhook.cancel()
	select {
	case err := <-e.webhook.done:
		e.webhook = nil
		return err
	case <-time.After(30 * time.Second):
		return errors.New("webhook server did not stop within 30s")
	}
}

// HasWebhook reports whether the control plane was started WithWebhook.
func (e *Env) HasWebhook() bool { return e.webhook != nil }

// EnforceWebhook switches the webhook between enforcing (refusals reach the client) and
// dormant (everything allowed, unevaluated). Switching it on waits until its caches hold
// what the API server holds (fixtures loaded a moment before count). It panics on a
// control plane without the webhook, or caches that do not catch up within a minute.
func (e *Env) EnforceWebhook(on bool) {
	if e.webhook == nil {
		panic("testenv: EnforceWebhook on a control plane started without WithWebhook")
	}
	m := webhook.Dormant
	if on {
		m = webhook.Enforce
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := e.webhook.reader.CatchUp(ctx); err != nil {
			panic("testenv: " + err.Error())
		}
	}
	e.webhook.srv.Handler().SetMode(m)
}

// WebhookEnforced reports whether the webhook enforces.
func (e *Env) WebhookEnforced() bool {
	return e.webhook != nil && e.webhook.srv.Handler().Mode() == webhook.Enforce
}

// WebhookLog is the path of the server's JSON log (one line per review), "" without it.
func (e *Env) WebhookLog() string {
	if e.webhook == nil {
		return ""
	}
	return e.webhook.log
}

// LoadExampleEnforced resets the control plane to the worked example with the webhook
// dormant (ledger-legacy predates the rules), runs prep as the admin, then enforces.
func (e *Env) LoadExampleEnforced(t testing.TB, prep func(ctx context.Context, c client.Client) error) {
	t.Helper()
	ctx := context.Background()
	e.EnforceWebhook(false)
	if err := e.ResetToExample(ctx); err != nil {
		t.Fatal(err)
	}
	if prep != nil {
		if err := prep(ctx, e.Client); err != nil {
			t.Fatalf("prep: %v", err)
		}
	}
	e.EnforceWebhook(true)
}

// Impersonating is the envtest admin acting as user with groups: what the API server
// (and so the webhook) sees is that user, with the RBAC of that user and those groups.
func (e *Env) Impersonating(user string, groups ...string) *rest.Config {
	cfg := e.UserConfig("admin")
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
	cfg.QPS, cfg.Burst = 100, 200
	return cfg
}

var webhookDenial = regexp.MustCompile(`^admission webhook "([^"]+)" denied the request: `)

// Denial returns the webhook's message of a refused request with the prefix the API server
// adds stripped, and the webhook's name; it fails when the error is anything else (RBAC,
// the CRD schema, a failed call) or is not the 403 Forbidden a denial is.
func Denial(t testing.TB, err error) (webhook, message string) {
	t.Helper()
	if err == nil {
		return "", ""
	}
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		t.Fatalf("not an API error: %v", err)
	}
	s := st.Status()
	m := webhookDenial.FindStringSubmatch(s.Message)
	if m == nil {
		t.Fatalf("not a webhook denial: %v", err)
	}
	if s.Code != 403 || s.Reason != metav1.StatusReasonForbidden {
		t.Errorf("denial with status %d %q, want 403 Forbidden", s.Code, s.Reason)
	}
	return m[1], s.Message[len(m[0]):]
}

// DenialOf is Denial without failing: ok is false for anything but a webhook refusal.
func DenialOf(err error) (webhook, message string, ok bool) {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return "", "", false
	}
	m := webhookDenial.FindStringSubmatch(st.Status().Message)
	if m == nil || st.Status().Code != 403 {
		return "", "", false
	}
	return m[1], strings.TrimPrefix(st.Status().Message, m[0]), true
}
