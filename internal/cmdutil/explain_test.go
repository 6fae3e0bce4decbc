package cmdutil

import (
	"errors"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// The stores word their errors without flags; Explain adds the advice and the exit code,
// keeping the command's own context and what the error wraps.
func TestExplain(t *testing.T) {
	stdin := storeerr.Missing(storeerr.NeedWritableSource, "cannot write: team %q came from stdin", "payments")
	unanswered := &storeerr.UnansweredError{Host: "https://10.0.0.1:6443", After: 30 * time.Second, Phase: storeerr.PhaseRequest}
	cases := []struct {
		name string
		err  error
		msg  string
		code int
	}{
		{"identity", storeerr.Missing(storeerr.NeedIdentity, "working on manifests, there is no server to say who you are"),
			"working on manifests, there is no server to say who you are: pass --as EMAIL (and --as-group GROUP), or set as: in the config file", ExitUsage},
		{"team", storeerr.Missing(storeerr.NeedTeam, "no team named"), "--team is required", ExitUsage},
		{"environment", storeerr.Missing(storeerr.NeedEnvironment, "no environment named"), "--environment is required", ExitUsage},
		{"stdin, with the command's context", fmt.Errorf("updating: %w", stdin),
			`updating: cannot write: team "payments" came from stdin; pass --manifests DIR or FILE`, ExitUsage},
		{"kubeconfig", storeerr.Missing(storeerr.NeedKubeconfig, "no kubeconfig found"),
			"no kubeconfig found: pass --kubeconfig FILE or set KUBECONFIG to reach a Butler management cluster, or pass --manifests PATH to work on manifests", ExitUsage},
		{"groups", storeerr.Missing(storeerr.NeedImpersonatedUser, "impersonating groups needs a user: the API server impersonates groups only together with a user"),
			"--as-group needs --as: the API server impersonates groups only together with a user", ExitUsage},
		{"provider", storeerr.Missing(storeerr.NeedProvider, "no ProviderConfig is visible to team %q", "payments"),
			`no ProviderConfig is visible to team "payments": pass --provider NAME`, ExitUsage},
		{"unanswered, under the HTTP client's words", fmt.Errorf(`Get "https://10.0.0.1:6443/apis": %w`, unanswered),
			"the API server at https://10.0.0.1:6443 did not answer within 30s (--request-timeout)", ExitFailure},
		{"TLS handshake", &storeerr.UnansweredError{Host: "https://h", After: 10 * time.Second, Phase: storeerr.PhaseTLSHandshake},
			"the API server at https://h did not complete the TLS handshake within 10s", ExitFailure},
		{"bad input keeps its message", storeerr.BadInput(errors.New("x.yaml:3: bad")), "x.yaml:3: bad", ExitUsage},
		{"denied keeps its message", storeerr.Denied(errors.New("admission webhook \"v\" denied the request: no")), "admission webhook \"v\" denied the request: no", ExitDenied},
		{"file exists", fmt.Errorf("cannot write %s: %w", "a.yaml", storeerr.ErrFileExists), "cannot write a.yaml: the file already exists", ExitUsage},
		{"a code the command chose wins", WithCode(ExitFailure, stdin), `cannot write: team "payments" came from stdin; pass --manifests DIR or FILE`, ExitFailure},
		{"no Kubernetes version: the library's need, worded with the flag", WithCode(ExitUsage, policy.ErrNoKubernetesVersion),
			"no Kubernetes version: pass --kubernetes-version, or set clusterDefaults.kubernetesVersion on the team or the environment", ExitUsage},
	}
	for _, c := range cases {
		got := Explain(c.err)
		if got.Error() != c.msg {
			t.Errorf("%s: message\n got %q\nwant %q", c.name, got, c.msg)
		}
		if code := CodeOf(got); code != c.code {
			t.Errorf("%s: exit %d, want %d", c.name, code, c.code)
		}
		if !errors.Is(got, c.err) {
			t.Errorf("%s: the explained error no longer wraps the store's", c.name)
		}
	}
	if Explain(nil) != nil {
		t.Error("Explain(nil) is not nil")
	}
	// A lookup's NotFound, an API status with a message for people, is exit 3 as it is.
	nf := apierrors.NewNotFound(schema.GroupResource{Group: "butler.butlerlabs.dev", Resource: "teams"}, "x")
	if got := Explain(nf); got != error(nf) || CodeOf(got) != ExitNotFound {
		t.Errorf("NotFound: %v, code %d", got, CodeOf(got))
	}
}

// pkg/manifest marks a document strict mode alone refused; Explain says after each such
// document how strict mode is turned on and off, and leaves the other problems alone.
func TestExplainStrictRefusals(t *testing.T) {
	refused := func(file string, line int) *manifest.DecodeError {
		return &manifest.DecodeError{File: file, Line: line, Doc: 1, Kind: "Deployment", Name: "web", Field: "kind",
			Msg: "apps/v1 Deployment is not a Butler or Steward kind: the tools do not check it", Strict: true}
	}
	other := &manifest.DecodeError{File: "c.yaml", Line: 3, Msg: "bad"}
	err := storeerr.BadInput(errors.Join(refused("a.yaml", 9), other, refused("b.yaml", 2)))
	got := Explain(err)
	want := `a.yaml:9: Deployment "web" (document 2): kind: apps/v1 Deployment is not a Butler or Steward kind: the tools do not check it` + strictAdvice + "\n" +
		"c.yaml:3: document 1: bad\n" +
		`b.yaml:2: Deployment "web" (document 2): kind: apps/v1 Deployment is not a Butler or Steward kind: the tools do not check it` + strictAdvice
	if got.Error() != want {
		t.Errorf("message\n got %q\nwant %q", got, want)
	}
	if CodeOf(got) != ExitUsage || !errors.Is(got, storeerr.ErrBadInput) {
		t.Errorf("exit %d, or no longer bad input: %v", CodeOf(got), got)
	}
	// Without strict refusals, a decode error is left as it is.
	if plain := storeerr.BadInput(other); Explain(plain) != plain {
		t.Errorf("a problem strict mode did not cause was reworded: %v", Explain(plain))
	}
}
