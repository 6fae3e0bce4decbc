package cli_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/internal/cli/butleradm"
	"github.com/butlerdotdev/butler-toolkit/internal/cli/wiring"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/root"
	"github.com/butlerdotdev/butler-toolkit/internal/completion"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
)

// kubeconfigFor writes a kubeconfig for a server at url (its certificate not checked).
func kubeconfigFor(t *testing.T, url string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: t}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
`, url)
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// silentTLS accepts TLS and every request, and never answers.
func silentTLS(t *testing.T) string {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // first: srv.Close waits for the handlers
	return srv.URL
}

// silentTCP accepts TCP connections and never says a word, TLS handshake included.
func silentTCP(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 64)
	t.Cleanup(func() {
		_ = l.Close()
		close(conns)
		for c := range conns {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns <- c
		}
	}()
	return "https://" + l.Addr().String()
}

// A server that accepts TLS and never answers: with no --request-timeout the command ends
// at the default, 30s, with a message naming the server and the flag, exit 1. Before the
// default it waited forever. A server that never completes TLS ends at the transport's
// 10s handshake limit. Both run at once; the test takes about 30s.
func TestUnansweredServer(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the default request timeout")
	}
	cases := []struct {
		name   string
		server func(*testing.T) string
		args   []string
		after  time.Duration
		msg    string
	}{
		{"TLS, then silence", silentTLS, nil, butlerclient.DefaultRequestTimeout, "did not answer within 30s (--request-timeout)"},
		{"--request-timeout 2s", silentTLS, []string{"--request-timeout", "2s"}, 2 * time.Second, "did not answer within 2s (--request-timeout)"},
		{"TCP, no TLS", silentTCP, nil, butlerclient.TLSHandshakeTimeout, "did not complete the TLS handshake within 10s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			url := c.server(t)
			start := time.Now()
			r := butlerctlIn(append([]string{"team", "list", "--kubeconfig", kubeconfigFor(t, url)}, c.args...)...)
			took := time.Since(start)
			if want := "Error: the API server at " + url + " " + c.msg + "\n"; r.code != 1 || r.stderr != want || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr\n got %q\nwant %q", r.code, r.stdout, r.stderr, want)
			}
			if took < c.after || took > c.after+5*time.Second {
				t.Errorf("returned after %v, want %v", took, c.after)
			}
		})
	}
}

// Shell completion against the same servers completes nothing, says nothing and returns
// within its own cap (completion.Timeout), well before the request timeout.
func TestCompletionOnUnansweredServer(t *testing.T) {
	for name, server := range map[string]func(*testing.T) string{"TLS, then silence": silentTLS, "TCP, no TLS": silentTCP} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			kc := kubeconfigFor(t, server(t))
			start := time.Now()
			r := butlerctlIn(cobra.ShellCompRequestCmd, "--kubeconfig", kc, "cluster", "get", "--team", "payments", "")
			took := time.Since(start)
			if r.code != 0 || r.stdout != ":4\n" || strings.Contains(r.stderr, "rror") {
				t.Errorf("exit %d, stdout %q, stderr %q; want names only, none", r.code, r.stdout, r.stderr)
			}
			if took > completion.Timeout+2*time.Second {
				t.Errorf("completion took %v, its cap is %v", took, completion.Timeout)
			}
		})
	}
}

// Each binary names itself and its version in the User-Agent of every request.
func TestUserAgentSent(t *testing.T) {
	got := make(chan string, 16)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.UserAgent()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"no"}`))
	}))
	t.Cleanup(srv.Close)
	kc := kubeconfigFor(t, srv.URL)
	for binary, run := range map[string]func(...string) run{"butlerctl": butlerctlIn, "butleradm": butleradmIn} {
		r := run("team", "list", "--kubeconfig", kc)
		if r.code != 4 {
			t.Errorf("%s: exit %d (%s), want the server's 403", binary, r.code, r.stderr)
		}
		if ua, want := <-got, butlerclient.UserAgent(binary); ua != want {
			t.Errorf("%s sent User-Agent %q, want %q", binary, ua, want)
		}
	}
}

// butleradmIn runs butleradm in this process with args, on buffers (no terminal).
func butleradmIn(args ...string) run {
	f := wiring.NewFactory("butleradm")
	streams, _, out, errOut := iostreams.Test()
	f.IOStreams = streams
	code := root.Run(f, butleradm.NewCmd(f), args)
	return run{code: code, stdout: out.String(), stderr: errOut.String()}
}
