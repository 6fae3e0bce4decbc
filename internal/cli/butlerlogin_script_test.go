package cli_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdButlerLogin writes ~/.butler/credentials.json the way butler-cli's `login` does
// (indented JSON, mode 0600 in a 0700 directory), with one server, active:
//
//	butlerlogin HOME SERVER EMAIL KUBECONFIG VALID_FOR
//
// The kubeconfig file's bytes are stored base64-encoded; VALID_FOR is a Go duration from
// now, negative for a login that has expired. The session and refresh tokens are filled
// with markers a script can look for, to show they are never printed.
func cmdButlerLogin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: butlerlogin HOME SERVER EMAIL KUBECONFIG VALID_FOR")
	}
	kc, err := os.ReadFile(ts.MkAbs(args[3]))
	ts.Check(err)
	valid, err := time.ParseDuration(args[4])
	ts.Check(err)
	now := time.Now().UTC().Truncate(time.Second)
	server := map[string]any{
		"user": map[string]any{
			"email": args[2], "name": "Logged In", "isPlatformAdmin": false,
			"teams": []map[string]string{{"name": "payments", "role": "operator"}},
		},
		"kubeconfig":       base64.StdEncoding.EncodeToString(kc),
		"expiresAt":        now.Add(valid),
		"sessionToken":     "SESSION-TOKEN-SECRET",
		"sessionExpiresAt": now.Add(valid),
		"refreshToken":     "REFRESH-TOKEN-SECRET",
		"refreshExpiresAt": now.Add(7 * 24 * time.Hour),
		"activeTeam":       "payments",
	}
	b, err := json.MarshalIndent(map[string]any{"activeServer": args[1], "servers": map[string]any{args[1]: server}}, "", "  ")
	ts.Check(err)
	dir := filepath.Join(ts.MkAbs(args[0]), ".butler")
	ts.Check(os.MkdirAll(dir, 0o700))
	ts.Check(os.WriteFile(filepath.Join(dir, "credentials.json"), b, 0o600))
}
