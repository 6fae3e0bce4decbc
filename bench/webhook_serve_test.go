package bench

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
)

// served is `butleradm webhook serve` built from this tree and run as the bundle runs it
// (GOMEMLIMIT, one replica: the leader's work), reading with the admin's credentials.
type served struct {
	cmd  *exec.Cmd
	url  string
	ca   []byte
	name string
}

func startServe(t *testing.T, env *testenv.Env) *served {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "butleradm")
	build := exec.Command("go", "build", "-o", bin, "../cmd/butleradm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building butleradm: %v\n%s", err, out)
	}
	ca := writeServingCert(t, dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	s := &served{ca: ca, name: "butler-bench-webhook", url: fmt.Sprintf("https://127.0.0.1:%d", port)}
	s.cmd = exec.Command(bin, "webhook", "serve", "--cert-dir", dir, "--port", strconv.Itoa(port), "--bind-address", "127.0.0.1",
		"--kubeconfig", env.Kubeconfig("admin"))
	s.cmd.Env = append(os.Environ(), "GOMEMLIMIT=200MiB")
	s.cmd.Stderr = logf
	started := time.Now()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: s.name}})
		_ = s.cmd.Process.Signal(os.Interrupt)
		_ = s.cmd.Wait()
		_ = logf.Close()
	})
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		resp, err := hc.Get(s.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Logf("webhook serve ready (its caches synced) %v after it started", time.Since(started).Round(time.Millisecond))
				return s
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("webhook serve not ready: %v\n%s", err, log)
		}
	}
}

// configuration registers the bundle's TenantCluster webhook for the load namespace, at
// the process's address.
func (s *served) configuration() *admissionregistrationv1.ValidatingWebhookConfiguration {
	var hook admissionregistrationv1.ValidatingWebhook
	for _, h := range webhook.Configuration(testenv.WebhookInstall).Webhooks {
		if h.Name == webhook.NameTenantCluster {
			hook = h
		}
	}
	url := s.url + webhook.PathTenantCluster
	hook.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: s.ca}
	hook.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: loadNS}}
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: s.name},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{hook},
	}
}

// peakRSS is the process's peak resident memory so far (VmHWM), in bytes.
func (s *served) peakRSS(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Logf("peak memory unknown: %v", err)
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fl := strings.Fields(sc.Text()); len(fl) == 3 && fl[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(fl[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// writeServingCert writes a self-signed certificate for 127.0.0.1 (tls.crt, tls.key) into
// dir and returns it as the CA bundle.
func writeServingCert(t *testing.T, dir string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "butler-bench-webhook"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(filepath.Join(dir, webhook.CertFile), ca, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, webhook.KeyFile), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return ca
}
