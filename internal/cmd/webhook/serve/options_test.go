package serve_test

import (
	"strings"
	"testing"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/webhook/serve"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// The flags and the global options, as the command parsed and completed them.
func TestRunFCompletesOptions(t *testing.T) {
	o, r := cmdtest.RunF(t, nil, serve.NewCmd, factory.GlobalOptions{Kubeconfig: "/nowhere/kubeconfig", AsSource: cmdutil.SourceEnv},
		"--cert-dir", "/tls", "--port", "8443", "--leader-elect", "--lease-namespace", "hooks", "--lease-duration", "20s",
		"--without-rule", "team-addons", "--audit", "--log-format", "text")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if o.CertDir != "/tls" || o.Port != 8443 || !o.LeaderElect || o.LeaseNamespace != "hooks" || o.LeaseDuration != 20*time.Second ||
		len(o.RulesOff) != 1 || o.RulesOff[0] != "team-addons" || !o.Audit || o.LogFormat != "text" || o.LogLevel != "info" {
		t.Errorf("flags: %+v", o)
	}
	// BUTLER_AS from the environment is no impersonation for the server.
	if o.IO == nil || o.Now == nil || o.RESTConfig == nil || o.Offline || o.Impersonating {
		t.Fatalf("not completed: %+v", o)
	}
	if _, err := o.RESTConfig(); err == nil || cmdutil.CodeOf(err) != cmdutil.ExitUsage {
		t.Errorf("credentials from a kubeconfig that is not there: %v", err)
	}
}

func TestRunFRefusesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts factory.GlobalOptions
		args []string
		want string
	}{
		{"cert-dir", factory.GlobalOptions{}, nil, "cert-dir"},
		{"port", factory.GlobalOptions{}, []string{"--cert-dir", "/tls", "--port", "70000"}, "--port: 70000 is not a port"},
		{"manifests", factory.GlobalOptions{Manifests: []string{"payments"}}, []string{"--cert-dir", "/tls"}, "--manifests does not apply"},
		{"as", factory.GlobalOptions{As: "bob", AsSource: cmdutil.SourceCommandLine}, []string{"--cert-dir", "/tls"}, "--as and --as-group do not apply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, r := cmdtest.RunF(t, nil, serve.NewCmd, tc.opts, tc.args...)
			if o != nil || r.Code != cmdutil.ExitUsage || !strings.Contains(r.Msg(), tc.want) {
				t.Errorf("ran: %v; exit %d, %q; want exit 2 with %q", o != nil, r.Code, r.Msg(), tc.want)
			}
		})
	}
}
