//go:build unix

package serve_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/root"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/serve"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
)

// TestServeUntilSIGTERM runs `webhook serve` in-process against an API server that is not
// there: it serves health but is not ready (its caches cannot sync), refuses a review that needs a read (fail closed,
// with the error), answers a malformed review with 400, and on SIGTERM shuts down cleanly.
func TestServeUntilSIGTERM(t *testing.T) {
	dir := t.TempDir()
	writeServingCert(t, dir)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	dead := freePort(t)
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: gone, cluster: {server: "https://127.0.0.1:`+strconv.Itoa(dead)+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: gone, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)

	ios, _, _, errOut := iostreams.Test()
	f := &factory.Factory{IOStreams: ios, Options: &factory.GlobalOptions{}, Now: time.Now}
	cmd := root.New(f, "butleradm", "", "")
	cmd.AddCommand(serve.NewCmd(f, nil))
	cmd.SetArgs([]string{"serve", "--cert-dir", dir, "--port", strconv.Itoa(port), "--bind-address", "127.0.0.1",
		"--kubeconfig", kubeconfig, "--log-format", "json", "--shutdown-timeout", "5s"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(context.Background()) }()

	base := "https://127.0.0.1:" + strconv.Itoa(port)
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // test
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := client.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Its caches cannot fill: alive, but not ready.
	resp, err := client.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "caches not synced") {
		t.Fatalf("/readyz with the API server away: HTTP %d %q, want 503 caches not synced", resp.StatusCode, body)
	}

	// A cluster create needs the Team: the read fails, so the request is refused.
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1",
		"kind":{"group":"butler.butlerlabs.dev","version":"v1alpha1","kind":"TenantCluster"},"operation":"CREATE",
		"userInfo":{"username":"bob@example.com"},"namespace":"payments","name":"x",
		"object":{"apiVersion":"butler.butlerlabs.dev/v1alpha1","kind":"TenantCluster","metadata":{"name":"x","namespace":"payments"},
		"spec":{"kubernetesVersion":"v1.31.0","teamRef":{"name":"payments"},"workers":{"replicas":1}}}}}`
	resp, err = client.Post(base+webhook.PathTenantCluster+"?timeout=3s", "application/json", strings.NewReader(review))
	if err != nil {
		t.Fatal(err)
	}
	var out admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if out.Response == nil || out.Response.Allowed || out.Response.Result.Code != 500 ||
		!strings.HasPrefix(out.Response.Result.Message, `fetch team "payments": `) {
		t.Fatalf("review with the API server away: %+v", out.Response)
	}
	resp, err = client.Post(base+webhook.PathTeam, "application/json", strings.NewReader(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("malformed review: HTTP %d", resp.StatusCode)
	}

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	logs := errOut.String()
	for _, want := range []string{`"msg":"starting"`, `"msg":"serving"`, `"msg":"refused: internal error"`, `"msg":"malformed admission review"`, `"msg":"shutting down"`, `"msg":"stopped"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("not a JSON log line: %s", line)
		}
	}
}

func TestNewLogger(t *testing.T) {
	var b bytes.Buffer
	log, err := serve.NewLogger(&b, "text", "warn")
	if err != nil {
		t.Fatal(err)
	}
	log.Info("hidden")
	log.Warn("shown", "k", "v")
	if got := b.String(); strings.Contains(got, "hidden") || !strings.Contains(got, "level=WARN msg=shown k=v") {
		t.Errorf("text log: %q", got)
	}
	if _, err := serve.NewLogger(&b, "xml", "info"); err == nil || cmdutil.CodeOf(err) != cmdutil.ExitUsage {
		t.Errorf("bad format: %v", err)
	}
	if _, err := serve.NewLogger(&b, "json", "loud"); err == nil || cmdutil.CodeOf(err) != cmdutil.ExitUsage {
		t.Errorf("bad level: %v", err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func writeServingCert(t *testing.T, dir string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, webhook.CertFile), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, webhook.KeyFile), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
}
