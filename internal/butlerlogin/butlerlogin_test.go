package butlerlogin

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "credentials.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadActive(t *testing.T) {
	kc := base64.StdEncoding.EncodeToString([]byte("apiVersion: v1\nkind: Config\n"))
	p := write(t, `{"activeServer": "https://b", "servers": {"https://b": {"user": {"email": " Alice@Example.COM "},
		"kubeconfig": "`+kc+`", "expiresAt": "2026-05-02T00:00:00Z", "sessionToken": "S3CRET"}}}`)
	l, err := Read(p, now)
	if err != nil {
		t.Fatal(err)
	}
	if l.Server != "https://b" || l.Email != "alice@example.com" || string(l.Kubeconfig) != "apiVersion: v1\nkind: Config\n" || l.Path != p {
		t.Errorf("%+v", l)
	}
}

func TestReadNothing(t *testing.T) {
	if l, err := Read(filepath.Join(t.TempDir(), "none.json"), now); l != nil || err != nil {
		t.Errorf("no file: %v %v", l, err)
	}
	if l, err := Read(write(t, `{"activeServer": "", "servers": {}}`), now); l != nil || err != nil {
		t.Errorf("logged out: %v %v", l, err)
	}
}

// Refusals name the file and the field, and never quote a secret.
func TestReadRefuses(t *testing.T) {
	for name, tc := range map[string]struct{ body, want string }{
		"expired":    {`{"activeServer": "https://b", "servers": {"https://b": {"kubeconfig": "eA==", "expiresAt": "2026-05-01T11:00:00Z", "sessionToken": "S3CRET"}}}`, "expired at 2026-05-01T11:00:00Z"},
		"no entry":   {`{"activeServer": "https://b", "servers": {}}`, `activeServer "https://b" has no entry in servers`},
		"no config":  {`{"activeServer": "https://b", "servers": {"https://b": {"expiresAt": "2027-01-01T00:00:00Z"}}}`, `servers["https://b"].kubeconfig is empty`},
		"not base64": {`{"activeServer": "https://b", "servers": {"https://b": {"kubeconfig": "S3CRET!!", "expiresAt": "2027-01-01T00:00:00Z"}}}`, `servers["https://b"].kubeconfig is not base64`},
		"not json":   {`{"activeServer": S3CRET`, "not butler-cli's credentials file"},
	} {
		p := write(t, tc.body)
		_, err := Read(p, now)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), "S3CRET") {
			t.Errorf("%s: %v", name, err)
		}
	}
	var exp *ExpiredError
	_, err := Read(write(t, `{"activeServer": "https://b", "servers": {"https://b": {"kubeconfig": "eA==", "expiresAt": "2026-05-01T12:00:00Z"}}}`), now)
	if !errors.As(err, &exp) {
		t.Errorf("expiring now is expired: %v", err)
	}
}

// The read is bounded: a file over MaxFileSize is refused, not read whole.
func TestReadBounded(t *testing.T) {
	p := write(t, `{"activeServer": "`+strings.Repeat("x", MaxFileSize)+`"}`)
	if _, err := Read(p, now); err == nil {
		t.Error("read a file over the limit")
	}
}

// A server URL with credentials (https://user:password@host) is named without its
// password, in every refusal and in the expired login's error.
func TestServerCredentialsRedacted(t *testing.T) {
	const srv = `"https://ci:S3CRET@b"`
	for name, body := range map[string]string{
		"expired":    `{"activeServer": ` + srv + `, "servers": {` + srv + `: {"kubeconfig": "eA==", "expiresAt": "2026-05-01T11:00:00Z"}}}`,
		"no entry":   `{"activeServer": ` + srv + `, "servers": {}}`,
		"no config":  `{"activeServer": ` + srv + `, "servers": {` + srv + `: {"expiresAt": "2027-01-01T00:00:00Z"}}}`,
		"not base64": `{"activeServer": ` + srv + `, "servers": {` + srv + `: {"kubeconfig": "!!", "expiresAt": "2027-01-01T00:00:00Z"}}}`,
	} {
		_, err := Read(write(t, body), now)
		if err == nil || strings.Contains(err.Error(), "S3CRET") || !strings.Contains(err.Error(), "https://ci:xxxxx@b") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A credentials file others may read or write is refused, as ssh refuses such a key,
// saying how to make it private; once private it is read.
func TestReadRefusesAFileOthersMayRead(t *testing.T) {
	kc := base64.StdEncoding.EncodeToString([]byte("apiVersion: v1\nkind: Config\n"))
	p := write(t, `{"activeServer": "https://b", "servers": {"https://b": {"kubeconfig": "`+kc+`", "expiresAt": "2026-05-02T00:00:00Z"}}}`)
	for _, mode := range []os.FileMode{0o644, 0o640, 0o602} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		l, err := Read(p, now)
		if err == nil || l != nil || !strings.Contains(err.Error(), "chmod 600 "+p) {
			t.Errorf("mode %#o: login read %v, error %v; want a refusal saying chmod 600", mode, l != nil, err)
		}
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if l, err := Read(p, now); err != nil || l == nil {
		t.Errorf("mode 0600: login read %v, error %v", l != nil, err)
	}
}
