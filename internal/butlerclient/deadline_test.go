package butlerclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// server is a TLS server whose handler runs h; it ends the handlers when the test ends.
func server(t *testing.T, h func(w http.ResponseWriter, r *http.Request, done <-chan struct{})) *rest.Config {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h(w, r, done) }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // before srv.Close, which waits for the handlers
	return &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
}

func client(t *testing.T, base *rest.Config, timeout time.Duration, ua string) *butlerclient.Client {
	t.Helper()
	cfg := rest.CopyConfig(base)
	cfg.Timeout = timeout
	c, err := butlerclient.New(butlerclient.Configure(cfg, ua))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func silent(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	select {
	case <-done:
	case <-r.Context().Done():
	}
}

// A server that accepts the request and never answers: the request ends at the deadline
// with an UnansweredError naming the server.
func TestRequestDeadline(t *testing.T) {
	cfg := server(t, silent)
	c := client(t, cfg, 300*time.Millisecond, "")
	start := time.Now()
	err := c.Get().Resource("teams").Do(context.Background()).Error()
	took := time.Since(start)
	var u *storeerr.UnansweredError
	if !errors.As(err, &u) || u.Host != cfg.Host || u.After != 300*time.Millisecond || u.Phase != storeerr.PhaseRequest {
		t.Fatalf("got %v, want an UnansweredError for %s after 300ms", err, cfg.Host)
	}
	if took < 300*time.Millisecond || took > 5*time.Second {
		t.Errorf("returned after %v", took)
	}
}

// A body that stops halfway is cut off by the same deadline.
func TestBodyDeadline(t *testing.T) {
	cfg := server(t, func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"kind":"TeamList","items":[`))
		w.(http.Flusher).Flush()
		silent(w, r, done)
	})
	err := client(t, cfg, 300*time.Millisecond, "").Get().Resource("teams").Do(context.Background()).Error()
	var u *storeerr.UnansweredError
	if !errors.As(err, &u) {
		t.Fatalf("got %v, want an UnansweredError", err)
	}
}

// A watch is bounded until its response starts, and then lasts past the deadline.
func TestWatchOutlivesTheDeadline(t *testing.T) {
	cfg := server(t, func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-time.After(600 * time.Millisecond):
		case <-done:
			return
		}
		_, _ = w.Write([]byte(`{"type":"ADDED","object":{"apiVersion":"butler.butlerlabs.dev/v1alpha1","kind":"TenantCluster","metadata":{"name":"web"}}}` + "\n"))
		w.(http.Flusher).Flush()
		silent(w, r, done)
	})
	c := client(t, cfg, 200*time.Millisecond, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := c.Get().Namespace("payments").Resource("tenantclusters").Param("watch", "true").Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev, ok := <-w.ResultChan()
	if !ok {
		t.Fatal("the watch ended at the request deadline")
	}
	if tc, _ := ev.Object.(*v1alpha1.TenantCluster); tc == nil || tc.Name != "web" {
		t.Fatalf("event %v %T", ev.Type, ev.Object)
	}

	// No answer at all: the watch request itself ends at the deadline.
	c = client(t, server(t, silent), 200*time.Millisecond, "")
	_, err = c.Get().Resource("tenantclusters").Param("watch", "true").Watch(ctx)
	var u *storeerr.UnansweredError
	if !errors.As(err, &u) {
		t.Fatalf("silent watch: %v, want an UnansweredError", err)
	}
}

// A timeout of 0 is no deadline, as kubectl's --request-timeout=0.
func TestNoDeadline(t *testing.T) {
	cfg := server(t, func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"TeamList","apiVersion":"butler.butlerlabs.dev/v1alpha1","items":[]}`))
	})
	if err := client(t, cfg, 0, "").Get().Resource("teams").Do(context.Background()).Error(); err != nil {
		t.Fatal(err)
	}
	// And a deadline that is not reached changes nothing.
	if err := client(t, cfg, 5*time.Second, "").Get().Resource("teams").Do(context.Background()).Error(); err != nil {
		t.Fatal(err)
	}
}

// A server that accepts TCP and never completes TLS ends at client-go's handshake limit.
func TestTLSHandshakeDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the 10s TLS handshake limit")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = conn.Close() })
		}
	}()
	cfg := &rest.Config{Host: "https://" + l.Addr().String(), TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	start := time.Now()
	err = client(t, cfg, time.Minute, "").Get().Resource("teams").Do(context.Background()).Error()
	var u *storeerr.UnansweredError
	if !errors.As(err, &u) || u.Phase != storeerr.PhaseTLSHandshake || u.After != butlerclient.TLSHandshakeTimeout {
		t.Fatalf("got %v, want an UnansweredError in the TLS handshake", err)
	}
	if took := time.Since(start); took > butlerclient.TLSHandshakeTimeout+5*time.Second {
		t.Errorf("returned after %v", took)
	}
}

func TestUserAgent(t *testing.T) {
	got := make(chan string, 1)
	cfg := server(t, func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
		got <- r.UserAgent()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"TeamList","apiVersion":"butler.butlerlabs.dev/v1alpha1","items":[]}`))
	})
	ua := butlerclient.UserAgent("butlerctl")
	if !strings.HasPrefix(ua, "butlerctl/") || len(ua) == len("butlerctl/") {
		t.Fatalf("UserAgent = %q", ua)
	}
	if err := client(t, cfg, time.Second, ua).Get().Resource("teams").Do(context.Background()).Error(); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != ua {
		t.Errorf("sent %q, want %q", g, ua)
	}
}
