package shared_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// The loader reads the kubeconfig given, with the context given, only when called.
func TestRESTConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	load := shared.RESTConfig(path, "b")
	if err := os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters:
- {name: a, cluster: {server: "https://a.example.com"}}
- {name: b, cluster: {server: "https://b.example.com"}}
users: [{name: u, user: {token: x}}]
contexts:
- {name: a, context: {cluster: a, user: u}}
- {name: b, context: {cluster: b, user: u}}
current-context: a
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://b.example.com" || cfg.Impersonate.UserName != "" {
		t.Errorf("host %s, impersonating %q: want context b's server, as itself", cfg.Host, cfg.Impersonate.UserName)
	}
	_, err = shared.RESTConfig(path, "c")()
	if cmdutil.CodeOf(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "loading credentials for the API server") {
		t.Errorf("a context not in the kubeconfig: %v", err)
	}
}
