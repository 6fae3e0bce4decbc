package cli_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A kubeconfig whose server URL carries credentials (https://user:password@host): no
// message names the server with its password, neither the impersonation warning, nor a
// deadline's error, nor client-go's error for a server that refuses.
func TestServerURLCredentialsNotPrinted(t *testing.T) {
	refusing := httptest.NewTLSServer(http.NotFoundHandler())
	refusing.Close()
	for name, url := range map[string]string{"unanswered": silentTLS(t), "refused": refusing.URL} {
		t.Run(name, func(t *testing.T) {
			withCreds := strings.Replace(url, "https://", "https://ci:s3cret@", 1)
			for _, b := range []func(...string) run{butlerctlIn, butleradmIn} {
				r := b("team", "list", "--as", "bob@example.com", "--request-timeout", "1s", "--kubeconfig", kubeconfigFor(t, withCreds))
				if r.code != 1 || strings.Contains(r.stdout+r.stderr, "s3cret") {
					t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
				}
				if !strings.Contains(r.stderr, "on https://ci:xxxxx@127.0.0.1:") || !strings.Contains(r.stderr, "Error: ") {
					t.Errorf("the server is not named, its password redacted: %q", r.stderr)
				}
			}
		})
	}
}
