// Package doctor checks a management cluster as the tools need it: the API server, Butler's
// CRDs against the ones the tools were built with, the webhooks that validate Butler's
// objects, the controller and Steward, ProviderConfigs, teams over quota, clusters stuck
// in a phase, and the identity the tools act as. Each check ends in a verdict and, unless
// it passed, a next step.
//
// It reads with the live store's connection (store.Server.Connection): each request has
// the store's deadline, and each check a deadline of its own on top (the webhooks' check,
// one per webhook it probes). A read the identity
// may not make is a skip, not a failure: `butlerctl doctor` runs as a developer.
package doctor

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/redact"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Verdict is how a check ended.
type Verdict string

// Verdicts. Only Fail fails the run: Warn is a pass with something to know, Skip a check
// that could not be made (not allowed, or nothing to check on this cluster).
const (
	Pass Verdict = "pass"
	Warn Verdict = "warn"
	Skip Verdict = "skip"
	Fail Verdict = "fail"
)

// Check is one check's result.
type Check struct {
	Name    string  `json:"name"`
	Verdict Verdict `json:"verdict"`
	Detail  string  `json:"detail"`
	Next    string  `json:"next,omitempty"`
}

// Report is every check's result, in the order they ran.
type Report struct {
	Checks []Check `json:"checks"`
	Passed bool    `json:"passed"`
}

// Scope is who runs the checks: the platform's operator (butleradm) or a developer
// (butlerctl), who sees their own teams and clusters and is not told to fix the platform.
type Scope int

// Scopes.
const (
	Developer Scope = iota
	Operator
)

// CheckTimeout bounds each check, whatever its number of requests. The webhooks' check
// bounds its list with it and each webhook's probe with ProbeTimeout instead.
const CheckTimeout = 20 * time.Second

// ProbeTimeout bounds one webhook's probe: the read of its Service's endpoints, or the TLS
// handshake with its URL. Each webhook has its own, so slow webhooks of other products
// cannot use up the time of Butler's.
const ProbeTimeout = 5 * time.Second

// Options are what the checks run with.
type Options struct {
	Scope Scope
	// Now is the clock for ages (stuck clusters).
	Now func() time.Time
	// StuckAfter is how long a cluster may stay in a phase on its way somewhere before it
	// counts as stuck.
	StuckAfter time.Duration

	// checkTimeout and probeTimeout are CheckTimeout and ProbeTimeout when zero (shorter
	// in tests).
	checkTimeout, probeTimeout time.Duration
}

// DefaultStuckAfter is Options.StuckAfter's default: provisioning a cluster takes minutes,
// not half an hour.
const DefaultStuckAfter = 30 * time.Minute

// Store is what the checks read: Butler's objects and who asks (store.Reader), and the
// server behind them (store.Served).
type Store interface {
	store.Reader
	store.Served
}

// env is what every check reads with.
type env struct {
	s       Store
	cfg     *rest.Config
	source  string // where the credentials came from (store.Server.CredentialSource)
	o       Options
	clients *clients

	// The teams and their clusters, read once for the quota and cluster checks.
	read       []teamClusters
	readChecks []Check
	// noController: the operator's checks found no controller, so an object without a
	// status is nothing to worry about.
	noController bool
}

// Run runs the checks on s's server. Offline it returns store.ErrNoServer: manifests have
// no installation to check.
func Run(ctx context.Context, s Store, o Options) (Report, error) {
	srv, err := s.Server()
	if err != nil {
		return Report{}, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.StuckAfter <= 0 {
		o.StuckAfter = DefaultStuckAfter
	}
	if o.checkTimeout <= 0 {
		o.checkTimeout = CheckTimeout
	}
	if o.probeTimeout <= 0 {
		o.probeTimeout = ProbeTimeout
	}
	e := &env{s: s, cfg: srv.Connection(), source: srv.CredentialSource(), o: o}
	if e.clients, err = newClients(e.cfg); err != nil {
		return Report{}, err
	}
	api := e.run(ctx, checkAPI)
	r := Report{Checks: []Check{api}}
	if api.Verdict == Fail {
		r.Checks = append(r.Checks, Check{Name: "all others", Verdict: Skip, Detail: "the API server did not answer"})
		return r.done(), nil
	}
	// The webhooks' check is not bounded as a whole: one deadline over every webhook's
	// probe would let slow webhooks of other products fail Butler's.
	checks := []func(context.Context, *env) []Check{bounded(checkIdentity), bounded(checkCRDs)}
	if o.Scope == Operator {
		checks = append(checks, checkWebhooks, bounded(checkController), bounded(checkSteward))
	}
	checks = append(checks, bounded(checkProviders), bounded(checkQuotas), bounded(checkClusters))
	for _, c := range checks {
		r.Checks = append(r.Checks, c(ctx, e)...)
	}
	return r.done(), nil
}

// done sets Passed, and makes every check's text inert with the credentials of any URL in
// it redacted: the checks quote what the server said (names, schema fields, messages,
// errors, which may quote the server's URL), and whatever quotes it, no printer of the
// report (text, JSON, YAML, templates) gets a terminal escape, a bidirectional control or
// a password from it.
func (r Report) done() Report {
	r.Passed = true
	for i := range r.Checks {
		c := &r.Checks[i]
		if c.Verdict == Fail {
			r.Passed = false
		}
		c.Name, c.Detail, c.Next = printable(c.Name), printable(c.Detail), printable(c.Next)
	}
	return r
}

func (e *env) run(ctx context.Context, f func(context.Context, *env) Check) Check {
	ctx, cancel := context.WithTimeout(ctx, e.o.checkTimeout)
	defer cancel()
	return f(ctx, e)
}

// bounded is f under a deadline of its own (checkTimeout).
func bounded(f func(context.Context, *env) []Check) func(context.Context, *env) []Check {
	return func(ctx context.Context, e *env) []Check {
		ctx, cancel := context.WithTimeout(ctx, e.o.checkTimeout)
		defer cancel()
		return f(ctx, e)
	}
}

// readFailed is the check of a read that failed: a skip when the identity may not read,
// else a failure naming what could not be read.
func readFailed(name, what string, err error, scope Scope) Check {
	if apierrors.IsForbidden(err) {
		c := Check{Name: name, Verdict: Skip, Detail: "not allowed to read " + what}
		if scope == Developer {
			c.Next = "a platform admin sees this with butleradm doctor"
		} else {
			c.Next = "run doctor as a platform admin (cluster-admin) to check " + what
		}
		return c
	}
	return Check{Name: name, Verdict: Fail, Detail: fmt.Sprintf("reading %s: %v", what, err),
		Next: "retry; if it persists, check the API server's health (kubectl get --raw /readyz)"}
}

func printable(s string) string { return inert.Text(redact.URLs(s)) }

func notFound(err error) bool    { return apierrors.IsNotFound(err) }
func isForbidden(err error) bool { return apierrors.IsForbidden(err) }

// count is "1 team", "2 teams".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
