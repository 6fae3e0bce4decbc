package manifests_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/manifests"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
)

// The flags and -n, as the command parsed and completed them.
func TestRunFCompletesOptions(t *testing.T) {
	o, r := cmdtest.RunF(t, nil, manifests.NewCmd, factory.GlobalOptions{Namespace: "platform"},
		"--service", "policy", "--name", "rules", "--ca-bundle-file", "ca.crt")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if o.Service != "policy" || o.Name != "rules" || o.CABundleFile != "ca.crt" {
		t.Errorf("flags: %+v", o)
	}
	if o.Namespace != "platform" || o.IO == nil || o.Printer == nil {
		t.Errorf("not completed: %+v", o)
	}
}

func TestRunFRefusesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts factory.GlobalOptions
		args []string
		want string
	}{
		{"service", factory.GlobalOptions{}, []string{"--service", ""}, "service"},
		{"name", factory.GlobalOptions{}, []string{"--name", ""}, "name"},
		{"output", factory.GlobalOptions{Output: "wide"}, nil, "unknown output format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, r := cmdtest.RunF(t, nil, manifests.NewCmd, tc.opts, tc.args...)
			if o != nil || r.Code != cmdutil.ExitUsage || !strings.Contains(r.Msg(), tc.want) {
				t.Errorf("ran: %v; exit %d, %q; want exit 2 with %q", o != nil, r.Code, r.Msg(), tc.want)
			}
		})
	}
}

// Without --ca-bundle-file the configuration is printed with a note that caBundle is
// empty; a file that holds no certificate is refused, naming it, with nothing printed.
func TestRun(t *testing.T) {
	r := cmdtest.Run(t, nil, cmdtest.Cmd(manifests.NewCmd), factory.GlobalOptions{Namespace: "platform"}, "", false, "--service", "policy")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, want := range []string{"kind: ValidatingWebhookConfiguration", "name: policy\n", "namespace: platform\n", "name: " + webhook.DefaultName + "\n"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.Stdout)
		}
	}
	if !strings.Contains(r.Stderr, "note: no --ca-bundle-file") {
		t.Errorf("stderr: %q", r.Stderr)
	}

	bad := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(bad, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = cmdtest.Run(t, nil, cmdtest.Cmd(manifests.NewCmd), factory.GlobalOptions{}, "", false, "--ca-bundle-file", bad)
	if r.Code != cmdutil.ExitUsage || !strings.Contains(r.Msg(), bad+": no PEM certificate") || r.Stdout != "" {
		t.Errorf("exit %d, %q, stdout %q", r.Code, r.Msg(), r.Stdout)
	}
}
