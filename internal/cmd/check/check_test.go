package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// payments is the worked example, which check reads from disk (not from the store).
const payments = "../../../examples/payments"

// What the command parsed and completed, through runF: nothing is read.
func TestNewCmdCompletes(t *testing.T) {
	s := storetest.Payments(t, "carol@example.com")
	o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{Manifests: []string{payments}, As: "carol@example.com", AsGroups: []string{"devs"}},
		"--base-manifests", "base", "--fail-on", "warning", "--format", "github", "--applier", "system:serviceaccount:flux-system:kc")
	if r.Code != 0 || o == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if o.Manifests[0] != payments || o.BaseManifests[0] != "base" || o.Format != FormatGitHub || !o.WarningsAsErrors ||
		o.Author.Username != "carol@example.com" || o.Author.Groups[0] != "devs" || o.Applier.Username != "system:serviceaccount:flux-system:kc" {
		t.Errorf("parsed %+v", o)
	}
	if o.IO == nil || o.Printer == nil || o.Live != nil || o.WholePlatform {
		t.Errorf("completed %+v", o)
	}
	if r.Stdout != "" || r.Stderr != "" {
		t.Errorf("runF only, yet printed %q %q", r.Stdout, r.Stderr)
	}

	// Without --manifests, the current directory; --context reads the platform, which
	// makes the tree complete.
	o, r = cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{Context: "prod"})
	if r.Code != 0 || o == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if len(o.Manifests) != 1 || o.Manifests[0] != "." || o.Live == nil || !o.WholePlatform || o.WarningsAsErrors {
		t.Errorf("with --context: %+v", o)
	}
}

// Combinations that cannot run are usage errors (exit 2), before anything is read.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		opts factory.GlobalOptions
		args []string
		want string
	}{
		{factory.GlobalOptions{}, []string{"--format", "html"}, `--format: "html" is not one of`},
		{factory.GlobalOptions{}, []string{"--fail-on", "note"}, `--fail-on: "note" is not one of error, warning`},
		{factory.GlobalOptions{Output: "json"}, []string{"--format", "sarif"}, "--format sarif is a report of its own: it does not go with -o json"},
		{factory.GlobalOptions{As: "a@example.com"}, []string{"--base", "main", "--base-manifests", "base"}, "--base and --base-manifests both name the base"},
		{factory.GlobalOptions{}, []string{"--base", "main"}, "give --as AUTHOR"},
	} {
		o, r := cmdtest.RunF(t, storetest.Payments(t, "carol@example.com"), NewCmd, tc.opts, tc.args...)
		if r.Code != 2 || o != nil || !strings.Contains(r.Msg(), tc.want) {
			t.Errorf("%v: exit %d, runF reached %v, error %v; want exit 2 with %q", tc.args, r.Code, o != nil, r.Err, tc.want)
		}
	}
}

// run judges the manifests and prints the report: -o json is the report's view, and the
// exit code follows its findings.
func TestRunReport(t *testing.T) {
	r := cmdtest.Run(t, storetest.Payments(t, "carol@example.com"), cmdtest.Cmd(NewCmd), factory.GlobalOptions{Manifests: []string{payments}, Output: "json"}, "", false)
	var got struct {
		Mode     string
		Errors   int
		Findings []struct{ Name, Rule string }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("exit %d (%v), stdout not JSON: %v\n%s", r.Code, r.Err, err, r.Stdout)
	}
	// The example's ledger-legacy predates the team's environments: refused for its missing
	// environment label.
	if got.Mode != "state" || got.Errors != 1 || len(got.Findings) != 1 || got.Findings[0].Name != "ledger-legacy" || got.Findings[0].Rule != "env-label-required" {
		t.Errorf("report %+v", got)
	}
	if r.Code != 4 || r.Stderr != "" {
		t.Errorf("exit %d, stderr %q; want 4 and nothing", r.Code, r.Stderr)
	}

	r = cmdtest.Run(t, storetest.Payments(t, "carol@example.com"), cmdtest.Cmd(NewCmd), factory.GlobalOptions{Manifests: []string{payments}}, "", false)
	if want := "1 error, 0 warnings in "; r.Code != 4 || !strings.Contains(r.Stdout, "ledger-legacy") || !strings.Contains(r.Stdout, want) {
		t.Errorf("text report: exit %d, want 4 and %q:\n%s", r.Code, want, r.Stdout)
	}
}

// --author-map is read by run, which says on stderr whom --as maps to; a map that does
// not read is an error before anything is judged.
func TestRunAuthorMap(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "authors.yaml"), filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte("carol-gh: carol@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("carol-gh: carol\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := factory.GlobalOptions{Manifests: []string{payments}, As: "carol-gh"}
	r := cmdtest.Run(t, storetest.Payments(t, "carol@example.com"), cmdtest.Cmd(NewCmd), opts, "", false, "--base-manifests", payments, "--author-map", good)
	if want := `author "carol-gh" is "carol@example.com" (--author-map)`; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr %q, want %q", r.Stderr, want)
	}
	if !strings.Contains(r.Stdout, "(change check)") {
		t.Errorf("exit %d (%v), no change report:\n%s", r.Code, r.Err, r.Stdout)
	}
	r = cmdtest.Run(t, storetest.Payments(t, "carol@example.com"), cmdtest.Cmd(NewCmd), opts, "", false, "--base-manifests", payments, "--author-map", bad)
	if r.Code != 2 || r.Stdout != "" || !strings.Contains(r.Msg(), "is not an e-mail") {
		t.Errorf("bad map: exit %d, stdout %q, error %v", r.Code, r.Stdout, r.Err)
	}
}
