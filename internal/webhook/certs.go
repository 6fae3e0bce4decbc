package webhook

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// Names of the serving certificate and key in the certificate folder: what a
// kubernetes.io/tls Secret (cert-manager's too) holds, mounted as a volume.
const (
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
)

// certReloader serves the certificate of a folder and picks up a new one when the files
// change. Every TLS handshake stats both files (two system calls; the API server keeps its
// connections, so handshakes are rare) and reloads when either differs from what was
// loaded: another file (a Secret volume swaps a symlink), another size or modification
// time. A pair that does not load (a rotation caught half-written: a new certificate with
// the old key) is logged and the previous certificate kept until the pair is whole.
type certReloader struct {
	certPath, keyPath string
	log               *slog.Logger

	mu       sync.Mutex
	cert     *tls.Certificate
	certInfo os.FileInfo
	keyInfo  os.FileInfo
}

func newCertReloader(dir string, log *slog.Logger) (*certReloader, error) {
	c := &certReloader{certPath: filepath.Join(dir, CertFile), keyPath: filepath.Join(dir, KeyFile), log: log}
	if err := c.reload(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *certReloader) reload() error {
	ci, err := os.Stat(c.certPath)
	if err != nil {
		return fmt.Errorf("serving certificate: %w", err)
	}
	ki, err := os.Stat(c.keyPath)
	if err != nil {
		return fmt.Errorf("serving key: %w", err)
	}
	if c.cert != nil && same(ci, c.certInfo) && same(ki, c.keyInfo) {
		return nil
	}
	cert, err := tls.LoadX509KeyPair(c.certPath, c.keyPath)
	if err != nil {
		return fmt.Errorf("loading the serving certificate from %s and %s: %w", c.certPath, c.keyPath, err)
	}
	first := c.cert == nil
	c.cert, c.certInfo, c.keyInfo = &cert, ci, ki
	if !first {
		c.log.Info("serving certificate reloaded", "cert", c.certPath, "notAfter", cert.Leaf.NotAfter)
	}
	return nil
}

func same(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// GetCertificate is tls.Config.GetCertificate.
func (c *certReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reload(); err != nil {
		c.log.Warn("serving certificate not reloaded; keeping the previous one", "error", err)
	}
	return c.cert, nil
}
