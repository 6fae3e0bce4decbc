package webhook

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// writeCert writes a self-signed serving certificate for 127.0.0.1 named cn into dir.
func writeCert(t *testing.T, dir, cn string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	// Written as a Secret volume updates: new files renamed into place.
	for name, data := range map[string][]byte{
		CertFile: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyFile:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}),
	} {
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// servedCN is the common name of the certificate a fresh TLS connection is served.
func servedCN(t *testing.T, addr string) string {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // test: looking at the served certificate
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Subject.CommonName
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServerTLSHealthReloadShutdown(t *testing.T) {
	dir := t.TempDir()
	if _, err := New(Options{CertDir: dir, Reader: payments(t)}); err == nil || !strings.Contains(err.Error(), "serving certificate") {
		t.Fatalf("no certificate: %v", err)
	}
	writeCert(t, dir, "first")
	var logs syncBuffer
	srv, err := New(Options{CertDir: dir, Reader: payments(t), Logger: newLogger(&logs), ShutdownTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}} //nolint:gosec // test
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := client.Get("https://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if code, body := get(p); code != 200 || body != "ok\n" {
			t.Errorf("%s: %d %q", p, code, body)
		}
	}
	// A review over TLS.
	body := reviewBody(t, admissionv1.Create, "TenantCluster", tc("sandbox-3", "dev", "carol@example.com", 2), nil, "carol@example.com")
	resp, err := client.Post("https://"+addr+PathTenantCluster, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `already owns 2 cluster(s) in environment \"dev\"`) {
		t.Errorf("review: %d %s", resp.StatusCode, b)
	}
	// A malformed one over TLS.
	resp, err = client.Post("https://"+addr+PathTeam, "application/json", strings.NewReader("]["))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("malformed: %d", resp.StatusCode)
	}

	// Certificate rotation: picked up by the next handshake, no restart.
	if cn := servedCN(t, addr); cn != "first" {
		t.Fatalf("served %q", cn)
	}
	writeCert(t, dir, "second")
	if cn := servedCN(t, addr); cn != "second" {
		t.Fatalf("after rotation served %q", cn)
	}
	// A half-written rotation (a new certificate, the old key): the previous one is kept.
	other := t.TempDir()
	writeCert(t, other, "third")
	crt, err := os.ReadFile(filepath.Join(other, CertFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, CertFile), crt, 0o600); err != nil {
		t.Fatal(err)
	}
	if cn := servedCN(t, addr); cn != "second" {
		t.Fatalf("half-written pair: served %q", cn)
	}
	if !strings.Contains(logs.String(), "keeping the previous one") {
		t.Errorf("no warning logged: %s", logs.String())
	}
	// The rest of the pair arrives.
	key, err := os.ReadFile(filepath.Join(other, KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, KeyFile), key, 0o600); err != nil {
		t.Fatal(err)
	}
	if cn := servedCN(t, addr); cn != "third" {
		t.Fatalf("whole pair: served %q", cn)
	}

	// Graceful shutdown: Serve returns nil, and the server is no longer ready.
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the context ended")
	}
	if srv.ready.Load() {
		t.Error("still ready after shutdown")
	}
	for _, want := range []string{`"msg":"serving"`, `"msg":"refused"`, `"msg":"malformed admission review"`, `"msg":"serving certificate reloaded"`, `"msg":"shutting down"`, `"msg":"stopped"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs.String())
		}
	}
}

func TestReadyzBeforeServing(t *testing.T) {
	dir := t.TempDir()
	writeCert(t, dir, "x")
	srv, err := New(Options{CertDir: dir, Reader: payments(t)})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("readyz before serving: %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("healthz: %d", rec.Code)
	}
}
