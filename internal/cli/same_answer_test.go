package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/butlerctl"
	"github.com/butlerdotdev/butler-toolkit/internal/cli/wiring"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/root"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

// run is one butlerctl run: exit code and what it printed.
type run struct {
	code           int
	stdout, stderr string
}

// butlerctlIn runs butlerctl in this process with args, on buffers (no terminal).
func butlerctlIn(args ...string) run {
	f := wiring.NewFactory("butlerctl")
	streams, _, out, errOut := iostreams.Test()
	f.IOStreams = streams
	code := root.Run(f, butlerctl.NewCmd(f), args)
	return run{code: code, stdout: out.String(), stderr: errOut.String()}
}

// serverFields are what a server adds to every object and manifests do not have.
var serverFields = map[string]bool{
	"uid": true, "resourceVersion": true, "creationTimestamp": true, "generation": true, "managedFields": true,
}

// normalize makes JSON and YAML output comparable across modes: the server's own
// metadata goes, and so do the groups a server adds to every identity
// (system:authenticated); other output is compared as it is.
// withoutKey is the JSON object s without its top-level key k (which must be there).
func withoutKey(t *testing.T, s, k string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, s)
	}
	if _, ok := m[k]; !ok {
		t.Fatalf("no %q in %s", k, s)
	}
	delete(m, k)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func normalize(t *testing.T, s string) string {
	t.Helper()
	trimmed := strings.TrimSpace(s)
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[") {
		// YAML documents (objects only; a table would read as one string)
		var docs []string
		for _, doc := range strings.Split(s, "\n---\n") {
			j, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil || !strings.HasPrefix(string(j), "{") {
				return s
			}
			docs = append(docs, normalize(t, string(j)))
		}
		return strings.Join(docs, "\n---\n")
	}
	var v any
	if err := json.Unmarshal([]byte(trimmed), &v); err != nil {
		return s
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k := range x {
				if serverFields[k] || k == "groups" {
					delete(x, k)
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSameAnswerOfflineAndLive is "same inputs, same answer": the worked example
// (examples/payments) is asked the same questions as manifests (--manifests, --as USER) and
// as objects on a real API server (each user's own kubeconfig), and every answer must be
// the same: exit code, stdout (JSON without the server's own metadata) and stderr.
//
// The questions are the read-only ones (teams, environments, access, clusters, identity,
// can-i) and the create preflight and rendering (--explain, --dry-run, the worked
// example's denials), for every identity; none writes.
func TestSameAnswerOfflineAndLive(t *testing.T) {
	env := testenv.Start(t, testenv.WithWebhook())
	liveMu.Lock()
	defer liveMu.Unlock()
	ctx := context.Background()
	env.EnforceWebhook(false)
	if err := env.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	payments, err := filepath.Abs(filepath.Join("..", "..", "examples", "payments"))
	if err != nil {
		t.Fatal(err)
	}
	if err := env.LoadManifests(ctx, payments); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("NO_COLOR", "1")

	questions := [][]string{
		{"team", "list", "-o", "json", "--view"},
		{"team", "get", "payments", "-o", "json", "--view"},
		{"team", "access", "payments", "-o", "json"},
		{"team", "access", "payments", "--environment", "prod", "-o", "json"},
		{"env", "list", "--team", "payments", "-o", "json"},
		{"env", "get", "dev", "--team", "payments", "-o", "json"},
		{"env", "get", "prod", "--team", "payments", "-o", "json"},
		{"env", "get", "staging", "--team", "payments", "-o", "json"},
		{"cluster", "list", "--team", "payments", "-o", "json"},
		{"cluster", "list", "--team", "payments", "-o", "name"},
		{"cluster", "list", "--team", "payments", "--environment", "dev", "-o", "name"},
		{"cluster", "list", "--team", "payments", "-l", "butler.butlerlabs.dev/environment!=dev", "-o", "yaml"},
		{"cluster", "get", "bob-checkout", "--team", "payments", "-o", "json"},
		{"cluster", "get", "nope", "--team", "payments"},
		{"auth", "whoami", "-o", "json"},
		{"auth", "can-i", "create", "cluster", "--team", "payments", "--environment", "dev", "-o", "json"},
		{"auth", "can-i", "create", "cluster", "--team", "payments", "--environment", "prod", "-o", "json"},
		{"auth", "can-i", "delete", "cluster", "--team", "payments", "--environment", "prod", "-o", "json"},
		{"cluster", "create", "web", "--team", "payments", "--environment", "prod", "--explain", "-o", "json"},
		{"cluster", "create", "web", "--team", "payments", "--environment", "dev", "--explain"},
		{"cluster", "create", "web", "--team", "payments", "--environment", "prod", "--dry-run", "-o", "yaml"},
		{"cluster", "create", "web", "--team", "payments", "--environment", "dev", "--workers", "3", "--addon", "cert-manager@v1.16.0", "--dry-run", "-o", "json"},
		// Scenarios 1 and 3 of the worked example (the per-member caps) for carol and bob,
		// the rendering for the others.
		{"cluster", "create", "sandbox-3", "--team", "payments", "--environment", "dev", "--dry-run", "-o", "json"},
		{"cluster", "create", "checkout-2", "--team", "payments", "--environment", "prod", "--dry-run"},
		{"cluster", "create", "web", "--team", "nope", "--environment", "dev"},
	}
	compared := 0
	for _, user := range testenv.Users {
		for _, q := range questions {
			name := strings.SplitN(user, "@", 2)[0] + ": " + strings.Join(q, " ")
			offline := butlerctlIn(append(append([]string{}, q...), "--manifests", payments, "--as", user)...)
			live := butlerctlIn(append(append([]string{}, q...), "--kubeconfig", env.Kubeconfig(user))...)
			if offline.code != live.code {
				t.Errorf("%s: exit %d offline, %d live\noffline stderr: %s\nlive stderr: %s", name, offline.code, live.code, offline.stderr, live.stderr)
				continue
			}
			if q[0] == "auth" && q[1] == "whoami" {
				// where the identity came from differs by design: --as offline, the
				// kubeconfig live
				offline.stdout, live.stdout = withoutKey(t, offline.stdout, "source"), withoutKey(t, live.stdout, "source")
			}
			if a, b := normalize(t, offline.stdout), normalize(t, live.stdout); a != b {
				t.Errorf("%s: stdout differs\n--- offline\n%s\n--- live\n%s", name, a, b)
			}
			if offline.stderr != live.stderr {
				t.Errorf("%s: stderr differs\n--- offline\n%s--- live\n%s", name, offline.stderr, live.stderr)
			}
			compared++
		}
	}
	// The answers must have said something: a broken setup would make both sides fail alike.
	ok := butlerctlIn("team", "get", "payments", "-o", "json", "--view", "--kubeconfig", env.Kubeconfig(testenv.Bob))
	var team map[string]any
	if ok.code != 0 || json.Unmarshal([]byte(ok.stdout), &team) != nil || team["name"] != "payments" {
		t.Fatalf("live team get: exit %d, %s %s", ok.code, ok.stdout, ok.stderr)
	}
	// Nothing was written on either side.
	after := butlerctlIn("cluster", "list", "--team", "payments", "-o", "name", "--kubeconfig", env.Kubeconfig(testenv.Olivia))
	if want := "tenantcluster.butler.butlerlabs.dev/bob-checkout\ntenantcluster.butler.butlerlabs.dev/carol-sandbox-1\ntenantcluster.butler.butlerlabs.dev/carol-sandbox-2\ntenantcluster.butler.butlerlabs.dev/ledger-legacy\n"; after.stdout != want {
		t.Errorf("clusters on the server after the comparison:\n%s", after.stdout)
	}
	t.Logf("%d answers compared (%d questions × %d identities)", compared, len(questions), len(testenv.Users))
}
