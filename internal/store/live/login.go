package live

import (
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerlogin"
	"github.com/butlerdotdev/butler-toolkit/internal/redact"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
)

// fromLogin is the client config of butler-cli's active login (~/.butler/credentials.json)
// with the command's overrides, acting for the logged-in user as butler-cli does (its
// e-mail impersonated with butlerlogin.Groups) unless --as says otherwise; nil when there
// is no login. An expired login is refused: it would only be refused by the server.
func fromLogin(overrides *clientcmd.ConfigOverrides) (*butlerlogin.Login, clientcmd.ClientConfig, error) {
	path, err := butlerlogin.Path()
	if err != nil {
		return nil, nil, nil // no home: no login to find
	}
	login, err := butlerlogin.Read(path, time.Now())
	if err != nil {
		return nil, nil, storeerr.BadInput(err)
	}
	if login == nil {
		return nil, nil, nil
	}
	cfg, err := clientcmd.Load(login.Kubeconfig)
	if err != nil {
		// clientcmd's decoding errors do not quote the token.
		return nil, nil, storeerr.BadInput(fmt.Errorf("%s: the kubeconfig of %s: %w", login.Path, redact.URL(login.Server), err))
	}
	o := *overrides
	if o.AuthInfo.Impersonate == "" && login.Email != "" {
		o.AuthInfo.Impersonate = login.Email
		o.AuthInfo.ImpersonateGroups = butlerlogin.Groups
	}
	return login, clientcmd.NewNonInteractiveClientConfig(*cfg, o.CurrentContext, &o, nil), nil
}

// source says where the credentials came from, for auth whoami and the note on stderr.
func source(login *butlerlogin.Login, rules *clientcmd.ClientConfigLoadingRules, loader clientcmd.ClientConfig, o Options) string {
	if login != nil {
		who := ""
		if login.Email != "" {
			who = ", acting for " + login.Email
		}
		return fmt.Sprintf("butler-cli login to %s (%s)%s, valid until %s", redact.URL(login.Server), login.Path, who, login.ExpiresAt.UTC().Format(time.RFC3339))
	}
	raw, err := loader.RawConfig()
	if err != nil || len(raw.Clusters) == 0 {
		return "the pod's service account"
	}
	ctx := raw.CurrentContext
	if o.Context != "" {
		ctx = o.Context
	}
	path := o.Kubeconfig
	if path == "" {
		for _, p := range rules.GetLoadingPrecedence() {
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
		}
	}
	return fmt.Sprintf("kubeconfig %s, context %s", path, ctx)
}

// CredentialSource implements store.Server: where the credentials came from.
func (s *Store) CredentialSource() string { return s.source }

// Login is butler-cli's login the store uses, nil when it uses a kubeconfig.
func (s *Store) Login() *butlerlogin.Login { return s.login }
