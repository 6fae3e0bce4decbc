package webhook_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
)

// balancer is the Service of the HA test: one TCP address in front of the webhook
// processes. Each accepted connection goes to the next live backend, round-robin; a backend
// that refuses the dial is marked dead and the next one tried, as kube-proxy stops sending
// to a pod whose endpoint is gone. Bytes are spliced both ways untouched, so TLS runs end
// to end between the API server and the webhook.
type balancer struct {
	ln       net.Listener
	backends []string

	mu     sync.Mutex
	dead   []bool
	next   int
	served []int // connections handed to each backend
	conns  map[net.Conn]struct{}
	// trip, when set, is called once with the backend of the first connection that carries
	// a chunk of at least tripBytes towards its backend (a review: the handshake and
	// HTTP/2 control frames are smaller); that chunk is never delivered and the
	// connection is cut, so the review it carries is in flight when the backend dies.
	trip func(backend int)
	// leader, when not -1, is the only backend connections go to (followLease).
	leader int
}

// setLeader sends every new connection to backend i only.
func (b *balancer) setLeader(i int) {
	b.mu.Lock()
	b.leader = i
	b.mu.Unlock()
}

const tripBytes = 1024

func newBalancer(t *testing.T, backends []string) *balancer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &balancer{ln: ln, backends: backends, dead: make([]bool, len(backends)),
		served: make([]int, len(backends)), conns: map[net.Conn]struct{}{}, leader: -1}
	go b.accept()
	t.Cleanup(b.close)
	return b
}

func (b *balancer) addr() string { return b.ln.Addr().String() }

func (b *balancer) close() {
	_ = b.ln.Close()
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.conns {
		_ = c.Close()
	}
}

// armTrip sets the trip (see balancer.trip).
func (b *balancer) armTrip(f func(backend int)) {
	b.mu.Lock()
	b.trip = f
	b.mu.Unlock()
}

// markDead takes a backend out of the rotation.
func (b *balancer) markDead(i int) {
	b.mu.Lock()
	b.dead[i] = true
	b.mu.Unlock()
}

// servedBy is how many connections each backend was handed.
func (b *balancer) servedBy() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int(nil), b.served...)
}

func (b *balancer) accept() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		go b.serve(c)
	}
}

// pick dials the next live backend, marking dead those that refuse.
func (b *balancer) pick() (int, net.Conn, error) {
	for range b.backends {
		b.mu.Lock()
		i := -1
		for k := range b.backends {
			j := (b.next + k) % len(b.backends)
			if !b.dead[j] && (b.leader < 0 || j == b.leader) {
				i = j
				break
			}
		}
		if i < 0 {
			b.mu.Unlock()
			break
		}
		b.next = i + 1
		b.mu.Unlock()
		up, err := net.DialTimeout("tcp", b.backends[i], 2*time.Second)
		if err == nil {
			b.mu.Lock()
			b.served[i]++
			b.mu.Unlock()
			return i, up, nil
		}
		b.markDead(i)
	}
	return -1, nil, errors.New("no live backend")
}

func (b *balancer) track(cs ...net.Conn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range cs {
		b.conns[c] = struct{}{}
	}
}

func (b *balancer) untrack(cs ...net.Conn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range cs {
		delete(b.conns, c)
		_ = c.Close()
	}
}

func (b *balancer) serve(down net.Conn) {
	i, up, err := b.pick()
	if err != nil {
		_ = down.Close()
		return
	}
	b.track(down, up)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(down, up); done <- struct{}{} }()
	go func() { b.forward(i, up, down); done <- struct{}{} }()
	<-done // either side ending ends both, as a proxy whose backend died does
	b.untrack(down, up)
	<-done
}

// forward copies the API server's bytes to backend i, tripping when armed.
func (b *balancer) forward(i int, up, down net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := down.Read(buf)
		if n >= tripBytes {
			b.mu.Lock()
			trip := b.trip
			b.trip = nil
			b.mu.Unlock()
			if trip != nil {
				trip(i)
				return
			}
		}
		if n > 0 {
			if _, werr := up.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// servingCert writes a self-signed serving certificate for 127.0.0.1 (tls.crt, tls.key)
// into a new folder and returns the folder and the certificate as the CA bundle.
func servingCert(t *testing.T) (dir string, caBundle []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "butler-webhook-ha-test"},
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
	dir = t.TempDir()
	caBundle = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(filepath.Join(dir, webhook.CertFile), caBundle, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, webhook.KeyFile), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, caBundle
}
