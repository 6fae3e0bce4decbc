package install_test

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/install"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
)

// The flags and the global options, as the command parsed and completed them.
func TestRunFCompletesOptions(t *testing.T) {
	o, r := cmdtest.RunF(t, nil, install.NewCmd, factory.GlobalOptions{Namespace: "hooks", Kubeconfig: "/nowhere/kubeconfig"},
		"--certs", "self-signed", "--replicas", "3", "--image", "registry.example.com/butleradm:v1", "--reap-schedule", "*/5 * * * *")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if o.Certs != webhook.CertsSelfSigned || o.Replicas != 3 || o.Image != "registry.example.com/butleradm:v1" ||
		o.ReapSchedule != "*/5 * * * *" || o.Name != webhook.DefaultName || o.Service != webhook.DefaultService || o.DryRun {
		t.Errorf("flags: %+v", o)
	}
	if o.Namespace != "hooks" || o.Offline || o.IO == nil || o.Printer == nil || o.Now == nil || o.RESTConfig == nil {
		t.Fatalf("not completed: %+v", o)
	}
	// The credentials are --kubeconfig's, read only when asked for.
	if _, err := o.RESTConfig(); err == nil || cmdutil.CodeOf(err) != cmdutil.ExitUsage {
		t.Errorf("credentials from a kubeconfig that is not there: %v", err)
	}
}

// Flags that cannot make an installation are refused before anything runs.
func TestRunFRefusesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts factory.GlobalOptions
		args []string
		want string
	}{
		{"certs", factory.GlobalOptions{}, []string{"--certs", "vault"}, `--certs: "vault" is neither`},
		{"replicas", factory.GlobalOptions{}, []string{"--replicas", "0"}, "--replicas: 0"},
		{"timeout", factory.GlobalOptions{}, []string{"--timeout", "0s"}, "--timeout: 0s"},
		{"image", factory.GlobalOptions{}, []string{"--image", ""}, "image"},
		{"output", factory.GlobalOptions{Output: "wide"}, nil, "unknown output format"},
		{"offline", factory.GlobalOptions{Manifests: []string{"payments"}}, nil, "use --dry-run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, r := cmdtest.RunF(t, nil, install.NewCmd, tc.opts, tc.args...)
			if o != nil || r.Code != cmdutil.ExitUsage || !strings.Contains(r.Msg(), tc.want) {
				t.Errorf("ran: %v; exit %d, %q; want exit 2 with %q", o != nil, r.Code, r.Msg(), tc.want)
			}
		})
	}
	// With --manifests, --dry-run is what the command can do.
	if o, r := cmdtest.RunF(t, nil, install.NewCmd, factory.GlobalOptions{Manifests: []string{"payments"}}, "--dry-run"); r.Err != nil || !o.Offline {
		t.Errorf("--dry-run with --manifests: %v", r.Err)
	}
}
