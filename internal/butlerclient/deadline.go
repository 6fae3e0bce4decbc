package butlerclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// Deadlines of the tools' requests, as kubectl's where kubectl has one.
const (
	// DefaultRequestTimeout bounds each request when --request-timeout is not given
	// (kubectl waits forever by default; a gate in CI must not).
	DefaultRequestTimeout = 30 * time.Second
	// DialTimeout and TLSHandshakeTimeout are client-go's transport limits, kubectl's too.
	DialTimeout         = 30 * time.Second
	TLSHandshakeTimeout = 10 * time.Second
)

// Configure returns a copy of base for the tools' clients: userAgent (when not empty) on
// every request, and base.Timeout (0: none) as each request's deadline, after which the
// request fails with a *storeerr.UnansweredError naming base.Host.
//
// The deadline is kept by the transport instead of http.Client.Timeout, which client-go
// would otherwise set: that one also ends a watch after the timeout, while here a watch is
// bounded only until its response starts, and then lasts as long as its caller's context
// (cluster create --wait has its own --timeout). A TLS handshake that does not finish
// within client-go's limit is an UnansweredError too.
func Configure(base *rest.Config, userAgent string) *rest.Config {
	cfg := rest.CopyConfig(base)
	if userAgent != "" {
		cfg.UserAgent = userAgent
	}
	after := cfg.Timeout
	cfg.Timeout = 0
	host := cfg.Host
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return &deadlineTransport{next: next, host: host, after: after}
	})
	return cfg
}

type deadlineTransport struct {
	next  http.RoundTripper
	host  string
	after time.Duration
}

func (d *deadlineTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if d.after <= 0 {
		resp, err := d.next.RoundTrip(req)
		return resp, d.handshake(err)
	}
	cause := &storeerr.UnansweredError{Host: d.host, After: d.after, Phase: storeerr.PhaseRequest}
	ctx, cancel := context.WithCancelCause(req.Context())
	timer := time.AfterFunc(d.after, func() { cancel(cause) })
	resp, err := d.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timedOut := context.Cause(ctx) == error(cause)
		timer.Stop()
		cancel(nil)
		if timedOut {
			return nil, cause
		}
		return nil, d.handshake(err)
	}
	if isWatch(req) && timer.Stop() {
		// The response started in time: the watch is the caller's to end.
		resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
		return resp, nil
	}
	// The body is read here, under the deadline (client-go reads it whole anyway): a body
	// cut off by the deadline is then the request's error, not a failed read that client-go
	// logs to stderr before returning it.
	body, err := fileio.ReadAll(resp.Body, maxBodyBytes)
	_ = resp.Body.Close()
	timedOut := context.Cause(ctx) == error(cause)
	timer.Stop()
	cancel(nil)
	switch {
	case timedOut:
		return nil, cause
	case err != nil:
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// handshake turns the transport's TLS handshake timeout into an UnansweredError.
func (d *deadlineTransport) handshake(err error) error {
	var ne net.Error
	if err != nil && errors.As(err, &ne) && ne.Timeout() && strings.Contains(err.Error(), "TLS handshake timeout") {
		return &storeerr.UnansweredError{Host: d.host, After: TLSHandshakeTimeout, Phase: storeerr.PhaseTLSHandshake}
	}
	return err
}

// isWatch reports whether req is a watch (?watch=true), which lasts by design.
func isWatch(req *http.Request) bool {
	switch req.URL.Query().Get("watch") {
	case "true", "1":
		return true
	}
	return false
}

// cancelOnClose ends a watch's context when the watch's body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// maxBodyBytes bounds a response read under the deadline: far above the largest list of
// Butler's objects a server sends (each object is at most etcd's 1.5 MiB), far below what
// would exhaust memory.
const maxBodyBytes = 1 << 30
