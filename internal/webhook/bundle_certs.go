package webhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// certValidity is how long a generated serving certificate (and its CA) is valid; the
// command run again before then rotates both.
const certValidity = 365 * 24 * time.Hour

// TLS is a generated serving certificate: PEM certificate and key, and the PEM CA that
// signed it. The CA's key is not kept: nothing else is ever signed with it.
type TLS struct {
	Cert, Key, CA []byte
	NotAfter      time.Time
}

// DNSNames are the names the API server calls the Service by.
func (in Install) DNSNames() []string {
	return []string{in.Service + "." + in.Namespace + ".svc", in.Service + "." + in.Namespace + ".svc.cluster.local"}
}

// GenerateTLS makes a CA and a serving certificate for the Service's names, valid from
// now for a year.
func GenerateTLS(in Install, now time.Time) (*TLS, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: in.name() + "-ca"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(certValidity),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: in.DNSNames()[0]}, DNSNames: in.DNSNames(),
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(certValidity),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &TLS{
		Cert:     pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:      pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		CA:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		NotAfter: tmpl.NotAfter,
	}, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

func (b Bundle) secret() *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: b.meta(b.SecretName()),
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: b.TLS.Cert, corev1.TLSPrivateKeyKey: b.TLS.Key, "ca.crt": b.TLS.CA},
	}
}

// issuer is a cert-manager self-signed Issuer in the installation's namespace: the
// serving certificate signs itself, and the CA injector puts it in caBundle.
func (b Bundle) issuer() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
		"metadata": map[string]any{"name": b.name(), "namespace": b.Namespace, "labels": stringMap(labels())},
		"spec":     map[string]any{"selfSigned": map[string]any{}},
	}}
}

// certificate is the serving certificate, renewed by cert-manager into SecretName (the
// server reloads it from the mounted Secret without a restart).
func (b Bundle) certificate() *unstructured.Unstructured {
	dns := []any{}
	for _, n := range b.DNSNames() {
		dns = append(dns, n)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": b.name(), "namespace": b.Namespace, "labels": stringMap(labels())},
		"spec": map[string]any{
			"secretName": b.SecretName(),
			"dnsNames":   dns,
			"issuerRef":  map[string]any{"kind": "Issuer", "name": b.name()},
			"privateKey": map[string]any{"algorithm": "ECDSA", "size": int64(256), "rotationPolicy": "Always"},
		},
	}}
}

func stringMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}
