// Package butlerlogin reads what butler-cli's `login` stores in ~/.butler/credentials.json,
// so that a developer who logged in there can use these tools without a kubeconfig for the
// management cluster: the active server's kubeconfig, the identity it acts for, and when
// it expires.
//
// The file (mode 0600, in a 0700 directory) is butler-cli's:
//
//	{"activeServer": URL,
//	 "servers": {URL: {"user": {"email", "name", "teams": [{"name", "role"}], "isPlatformAdmin"},
//	                   "kubeconfig": base64 of a kubeconfig, "expiresAt": RFC 3339,
//	                   "sessionToken", "sessionExpiresAt", "refreshToken", "refreshExpiresAt",
//	                   "activeTeam"}}}
//
// Only the kubeconfig, its expiry and the user's e-mail are used; the session and refresh
// tokens are butler-server's and never read into anything that prints. Nothing here puts
// a secret in an error.
package butlerlogin

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/redact"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// MaxFileSize bounds the read of the credentials file: a few servers' kubeconfigs.
const MaxFileSize = 4 << 20

// Groups are the groups butler-cli impersonates with the user's e-mail: the server's
// identity for API users, and every authenticated user's.
var Groups = []string{"butler-api-users", "system:authenticated"}

// Login is the active server's credentials.
type Login struct {
	// Path is the file they were read from.
	Path string
	// Server is the Butler server logged in to (butler-server's URL, not the API server's).
	Server string
	// Email is the user's, trimmed and lower-cased as butler-cli impersonates it; "" when
	// the file names none (then the kubeconfig's own identity is used, as butler-cli does).
	Email string
	// ExpiresAt is when the kubeconfig's token expires.
	ExpiresAt time.Time
	// Kubeconfig is the management cluster's kubeconfig (it holds a token: never print it).
	Kubeconfig []byte
}

// ExpiredError is a login whose kubeconfig token has expired.
type ExpiredError struct {
	Path, Server string
	At           time.Time
}

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("the butler-cli login to %s in %s expired at %s: log in again with butler-cli (butlerctl login), or pass --kubeconfig",
		redact.URL(e.Server), e.Path, e.At.UTC().Format(time.RFC3339))
}

// Path is ~/.butler/credentials.json.
func Path() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".butler", "credentials.json"), nil
}

// private refuses a credentials file others may read, as ssh refuses such a private key:
// the tokens in it are to be taken as known to others, and using them would hide that.
// Windows has no such mode bits to check.
func private(path string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("reading butler-cli's credentials: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s is readable or writable by others (mode %#o): its tokens may be known to them; "+
			"make it private (chmod 600 %s) and log in again with butler-cli, or pass --kubeconfig", path, perm, path)
	}
	return nil
}

// file and server are the parts of butler-cli's file the tools read.
type file struct {
	ActiveServer string             `json:"activeServer"`
	Servers      map[string]*server `json:"servers"`
}

type server struct {
	User struct {
		Email string `json:"email"`
	} `json:"user"`
	Kubeconfig string    `json:"kubeconfig"`
	ExpiresAt  time.Time `json:"expiresAt"`
}

// Read returns the active server's login from the file at path, or (nil, nil) when there
// is no file or no active server. A file it cannot read or parse, an active server
// missing from it or without a kubeconfig is an error naming the file; an expired login
// is an *ExpiredError.
func Read(path string, now time.Time) (*Login, error) {
	b, err := fileio.ReadFile(path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading butler-cli's credentials: %w", err)
	}
	if err := private(path); err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		// json's syntax errors quote no input; type errors name a field, not its value.
		return nil, fmt.Errorf("%s: not butler-cli's credentials file: %w", path, err)
	}
	if f.ActiveServer == "" {
		return nil, nil
	}
	s := f.Servers[f.ActiveServer]
	if s == nil {
		return nil, fmt.Errorf("%s: activeServer %q has no entry in servers", path, redact.URL(f.ActiveServer))
	}
	if s.Kubeconfig == "" {
		return nil, fmt.Errorf("%s: servers[%q].kubeconfig is empty: log in again with butler-cli", path, redact.URL(f.ActiveServer))
	}
	if !now.Before(s.ExpiresAt) {
		return nil, &ExpiredError{Path: path, Server: f.ActiveServer, At: s.ExpiresAt}
	}
	kc, err := base64.StdEncoding.DecodeString(s.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("%s: servers[%q].kubeconfig is not base64", path, redact.URL(f.ActiveServer))
	}
	return &Login{
		Path:       path,
		Server:     f.ActiveServer,
		Email:      strings.ToLower(strings.TrimSpace(s.User.Email)),
		ExpiresAt:  s.ExpiresAt,
		Kubeconfig: kc,
	}, nil
}
