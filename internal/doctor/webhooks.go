package doctor

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// ToolkitLabel is the label `butleradm webhook install` and `webhook manifests` put on
// this project's webhook configuration.
const ToolkitLabel = "app.kubernetes.io/name=butler-toolkit-webhook"

// probeWorkers is how many webhooks are probed at once: each waits for its turn before its
// own deadline starts.
const probeWorkers = 4

// injectAnnotation is cert-manager's CA injector's annotation: it fills caBundle.
const injectAnnotation = "cert-manager.io/inject-ca-from"

// checkWebhooks checks every ValidatingWebhookConfiguration that validates Butler's
// objects: the controller's (when its chart enables them) and this project's. ctx has no
// deadline over the whole check: the list has one (Options.checkTimeout), and each
// webhook's probe one of its own (Options.probeTimeout).
func checkWebhooks(ctx context.Context, e *env) []Check {
	lctx, cancel := context.WithTimeout(ctx, e.o.checkTimeout)
	all, err := butlerclient.List(lctx, e.clients.webhooks, "", "validatingwebhookconfigurations",
		func(l *admissionregistrationv1.ValidatingWebhookConfigurationList) []admissionregistrationv1.ValidatingWebhookConfiguration {
			return l.Items
		})
	cancel()
	if err != nil {
		return []Check{readFailed("webhooks", "ValidatingWebhookConfigurations", err, e.o.Scope)}
	}
	var ws []*admissionregistrationv1.ValidatingWebhookConfiguration
	for i := range all {
		if validatesButler(&all[i]) {
			ws = append(ws, &all[i])
		}
	}
	probes := probeAll(ctx, e, ws)
	var out []Check
	var toolkit, controller int
	for i, w := range ws {
		name := "webhook " + inert.Text(w.Name)
		if w.Labels["app.kubernetes.io/name"] == "butler-toolkit-webhook" {
			toolkit++
			name = "toolkit webhook " + inert.Text(w.Name)
		} else {
			controller++
		}
		out = append(out, checkConfiguration(name, w, probes[i]))
	}
	switch {
	case toolkit == 0 && controller == 0:
		return []Check{{Name: "webhooks", Verdict: Warn, Detail: "no webhook validates Butler's objects: any write the API server's schema accepts goes in unchecked",
			Next: "enable the controller's webhooks (controller.webhooksEnabled in its chart), or butleradm webhook install"}}
	case controller == 0:
		out = append([]Check{{Name: "controller webhooks", Verdict: Skip, Detail: "none registered (off by default in the controller's chart); this project's webhook validates Butler's objects"}}, out...)
	}
	return out
}

// validatesButler reports whether a rule of w matches Butler's group.
func validatesButler(w *admissionregistrationv1.ValidatingWebhookConfiguration) bool {
	for _, h := range w.Webhooks {
		for _, r := range h.Rules {
			for _, g := range r.APIGroups {
				if g == v1alpha1.GroupVersion.Group || g == "*" {
					return true
				}
			}
		}
	}
	return false
}

// probeAll probes whether each webhook of ws is serving (serving), a few at a time, each
// under a deadline of its own: a slow webhook costs its own probe, never another's. The
// answer is by configuration and webhook; a webhook with neither a CA bundle nor a URL
// is not probed (checkConfiguration fails it without).
func probeAll(ctx context.Context, e *env, ws []*admissionregistrationv1.ValidatingWebhookConfiguration) [][]error {
	out := make([][]error, len(ws))
	turns := make(chan struct{}, probeWorkers)
	var wg sync.WaitGroup
	for i, w := range ws {
		out[i] = make([]error, len(w.Webhooks))
		for j := range w.Webhooks {
			cc := &w.Webhooks[j].ClientConfig
			if len(cc.CABundle) == 0 && cc.URL == nil {
				continue
			}
			wg.Go(func() {
				turns <- struct{}{}
				defer func() { <-turns }()
				out[i][j] = probe(ctx, e, cc)
			})
		}
	}
	wg.Wait()
	return out
}

// probe is serving under a deadline of its own (Options.probeTimeout).
func probe(ctx context.Context, e *env, cc *admissionregistrationv1.WebhookClientConfig) error {
	pctx, cancel := context.WithTimeout(ctx, e.o.probeTimeout)
	defer cancel()
	err := serving(pctx, e, cc)
	if err != nil && ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s", e.o.probeTimeout)
	}
	return err
}

// checkConfiguration checks each webhook of w: failure policy, CA bundle, serving (probes,
// probeAll's answers for w). The worst finding decides the verdict; every finding is named.
func checkConfiguration(name string, w *admissionregistrationv1.ValidatingWebhookConfiguration, probes []error) Check {
	c := Check{Name: name, Verdict: Pass}
	var found []string
	worst := func(v Verdict, what, next string) {
		found = append(found, what)
		if rank(v) > rank(c.Verdict) {
			c.Verdict, c.Next = v, next
		}
	}
	for i := range w.Webhooks {
		h := &w.Webhooks[i]
		hn := inert.Text(h.Name)
		if h.FailurePolicy != nil && *h.FailurePolicy == admissionregistrationv1.Ignore {
			worst(Warn, hn+": failurePolicy Ignore, so writes go in unchecked while it is down",
				"set failurePolicy: Fail on "+inert.Text(w.Name)+" once it serves reliably")
		}
		cc := &h.ClientConfig
		// An empty caBundle is the system's roots for a URL: fine for a server with a
		// publicly trusted certificate, never for a Service.
		emptyCA := hn + ": caBundle is empty, so the API server cannot trust it and every write it matches fails"
		if len(cc.CABundle) == 0 && cc.URL == nil {
			worst(Fail, emptyCA, caNext(w))
			continue
		}
		err := probes[i]
		if len(cc.CABundle) == 0 && certRefused(err) {
			worst(Fail, emptyCA, caNext(w))
			continue
		}
		if err != nil {
			if cc.URL != nil && !certRefused(err) {
				// Dialled from this machine, not from the API server's network.
				worst(Warn, hn+": not reachable from here: "+err.Error(), servingNext(cc))
				continue
			}
			worst(Fail, hn+": not serving: "+err.Error(), servingNext(cc))
		}
	}
	if len(found) == 0 {
		c.Detail = fmt.Sprintf("%d webhooks: failurePolicy Fail, CA bundle set, serving", len(w.Webhooks))
		return c
	}
	c.Detail = strings.Join(found, "; ")
	return c
}

func rank(v Verdict) int {
	switch v {
	case Fail:
		return 3
	case Warn:
		return 2
	case Skip:
		return 1
	}
	return 0
}

func caNext(w *admissionregistrationv1.ValidatingWebhookConfiguration) string {
	if from := w.Annotations[injectAnnotation]; from != "" {
		ns, cert, _ := strings.Cut(from, "/")
		return fmt.Sprintf("cert-manager's CA injector fills it from Certificate %s: kubectl -n %s describe certificate %s, and check cert-manager's cainjector is running", inert.Text(from), inert.Text(ns), inert.Text(cert))
	}
	if w.Labels["app.kubernetes.io/name"] == "butler-toolkit-webhook" {
		return "butleradm webhook install --certs self-signed fills it (or --certs cert-manager with cert-manager installed)"
	}
	return "set clientConfig.caBundle of " + inert.Text(w.Name) + " to the CA that signed the webhook's serving certificate"
}

func servingNext(cc *admissionregistrationv1.WebhookClientConfig) string {
	if s := cc.Service; s != nil {
		return fmt.Sprintf("kubectl -n %s get endpointslices -l kubernetes.io/service-name=%s, then the pods behind Service %s", inert.Text(s.Namespace), inert.Text(s.Name), inert.Text(s.Name))
	}
	return "start the server at the configuration's URL, or point the configuration at the one that runs"
}

// serving checks the webhook answers: a Service with a ready endpoint, or a URL that
// completes a TLS handshake trusting the CA bundle.
func serving(ctx context.Context, e *env, cc *admissionregistrationv1.WebhookClientConfig) error {
	if s := cc.Service; s != nil {
		slices, err := butlerclient.List(ctx, e.clients.slices, s.Namespace, "endpointslices",
			func(l *discoveryv1.EndpointSliceList) []discoveryv1.EndpointSlice { return l.Items })
		if err != nil {
			return fmt.Errorf("reading Service %s/%s's endpoints: %w", inert.Text(s.Namespace), inert.Text(s.Name), err)
		}
		for _, sl := range slices {
			if sl.Labels[discoveryv1.LabelServiceName] != s.Name {
				continue
			}
			for _, ep := range sl.Endpoints {
				if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
					return nil
				}
			}
		}
		return fmt.Errorf("Service %s/%s has no ready endpoint", inert.Text(s.Namespace), inert.Text(s.Name))
	}
	if cc.URL == nil {
		return fmt.Errorf("neither a Service nor a URL")
	}
	return handshake(ctx, *cc.URL, cc.CABundle)
}

// handshake completes a TLS handshake with the server at raw, trusting only ca.
func handshake(ctx context.Context, raw string, ca []byte) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("URL %q: %w", inert.Text(raw), err)
	}
	var pool *x509.CertPool // nil: the system's roots, as the API server uses for an empty caBundle
	if len(ca) > 0 {
		pool = x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return fmt.Errorf("caBundle holds no PEM certificate")
		}
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}
	d := tls.Dialer{Config: &tls.Config{RootCAs: pool, ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}}
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return fmt.Errorf("%s: %w", inert.Text(host), err)
	}
	return conn.Close()
}

// certRefused reports whether err is a TLS handshake that did not trust the server's
// certificate (rather than a server that could not be reached).
func certRefused(err error) bool {
	var v *tls.CertificateVerificationError
	var u x509.UnknownAuthorityError
	return errors.As(err, &v) || errors.As(err, &u)
}
