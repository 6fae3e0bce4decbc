// Package webhook serves the policy library (pkg/policy) as a validating admission webhook:
// TenantCluster create and update (policy.AdmitCluster), Team create and update
// (policy.AdmitTeam) and ProviderConfig create, update (policy.ValidateProviderConfig) and
// delete (policy.ProviderDeleteGuard), at the paths and under the names of Butler's own
// webhooks, with the contract's messages byte for byte. So a refusal reads the same from
// the CLI's preflight and from the API server.
//
// It is plain net/http with the admission.k8s.io/v1 types, not controller-runtime's
// webhook package: the TenantCluster and Team rules need the request's UserInfo (a raw
// handler there too), the caches are client-go informers of their own (CachedReader: a
// review costs the same whatever a namespace holds, and one namespace's reviews are
// decided one at a time against its figures and a ledger), and the binary it ships in
// stays free of controller-runtime. Replicas elect the one that decides (Election).
//
// Objects are read with the server's own credentials (Reader), never with the
// requester's; the Team is read fresh on every review.
package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Options configure a Server.
type Options struct {
	// CertDir holds tls.crt and tls.key; they are reloaded when they change.
	CertDir string
	// Reader reads Teams, TenantClusters, ProviderConfigs, Users and IdentityProviders and
	// runs SubjectAccessReviews.
	Reader Reader
	// Logger receives one structured line per review; nil discards.
	Logger *slog.Logger
	// Audit answers every review allowed, logging what would have been refused.
	Audit bool
	// ShutdownTimeout bounds the wait for in-flight reviews on shutdown (default 10s).
	ShutdownTimeout time.Duration
	// Ready, when set, must also hold for /readyz to answer ok (the leader's lease).
	Ready func() bool
	// RulesOff switches off rules by which this webhook goes beyond Butler ("all": every
	// one, so that it answers as Butler does).
	RulesOff []string
}

// caching is a Reader with caches of its own (CachedReader): Serve runs them, and the
// server is not ready before they have synced.
type caching interface {
	Run(ctx context.Context)
	Synced() bool
}

// Server is the webhook's HTTPS server: the four webhook paths, /healthz and /readyz.
type Server struct {
	handler  *Handler
	certs    *certReloader
	log      *slog.Logger
	shutdown time.Duration
	ready    atomic.Bool
	gate     func() bool
	caches   caching
}

// New loads the serving certificate (it must be there) and builds the server.
func New(o Options) (*Server, error) {
	if o.Reader == nil {
		return nil, errors.New("webhook: no Reader")
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	certs, err := newCertReloader(o.CertDir, log)
	if err != nil {
		return nil, err
	}
	h, err := NewHandler(o.Reader, log)
	if err != nil {
		return nil, err
	}
	if err := h.SetRulesOff(o.RulesOff); err != nil {
		return nil, err
	}
	if o.Audit {
		h.SetMode(Audit)
	}
	s := &Server{handler: h, certs: certs, log: log, shutdown: o.ShutdownTimeout, gate: o.Ready}
	s.caches, _ = o.Reader.(caching)
	if s.shutdown <= 0 {
		s.shutdown = 10 * time.Second
	}
	return s, nil
}

// Handler is the admission handler, for switching its mode while serving.
func (s *Server) Handler() *Handler { return s.handler }

// ServeHTTP routes the webhook paths, /healthz (the process answers) and /readyz (serving
// and not shutting down).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch cleanPath(r.URL.Path) {
	case "/healthz", "/livez":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = fmt.Fprintln(w, "ok")
	case "/readyz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if why := s.notReady(); why != "" {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = fmt.Fprintln(w, "not ready: "+why)
			return
		}
		_, _ = fmt.Fprintln(w, "ok")
	default:
		s.handler.ServeHTTP(w, r)
	}
}

// notReady says why /readyz fails, "" when ready.
func (s *Server) notReady() string {
	switch {
	case !s.ready.Load():
		return "not serving"
	case s.caches != nil && !s.caches.Synced():
		return "caches not synced"
	case s.gate != nil && !s.gate():
		return "not the leader"
	}
	return ""
}

// Ready reports whether /readyz answers ok.
func (s *Server) Ready() bool { return s.notReady() == "" }

// TLSConfig serves the certificate of CertDir, reloaded on change.
func (s *Server) TLSConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: s.certs.GetCertificate}
}

// Serve answers on ln (plain TCP; Serve adds TLS) until ctx ends, then stops accepting,
// reports not ready, and waits up to the shutdown timeout for reviews in flight. It
// returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s,
		TLSConfig:         s.TLSConfig(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if s.caches != nil {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		s.caches.Run(cctx)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeTLS(ln, "", "") }()
	s.ready.Store(true)
	s.log.Info("serving", "address", ln.Addr().String(), "mode", s.handler.Mode().String())

	select {
	case err := <-errc:
		s.ready.Store(false)
		return err
	case <-ctx.Done():
	}
	s.ready.Store(false)
	s.log.Info("shutting down", "timeout", s.shutdown.String())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.shutdown)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	s.log.Info("stopped")
	return nil
}

// ListenAndServe listens on addr ("host:port") and serves until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}
