package parity_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

// The test shares one control plane with Butler's webhooks registered and served by
// internal/webhook (testenv.WithWebhook).
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// loadPayments resets the control plane to the worked example with the webhook dormant
// (ledger-legacy predates the rules), runs prep as the admin, then enforces.
func loadPayments(t testing.TB, env *testenv.Env, prep func(ctx context.Context, c client.Client) error) {
	t.Helper()
	ctx := context.Background()
	env.EnforceWebhook(false)
	if err := env.ResetToExample(ctx); err != nil {
		t.Fatal(err)
	}
	if prep != nil {
		if err := prep(ctx, env.Client); err != nil {
			t.Fatalf("prep: %v", err)
		}
	}
	env.EnforceWebhook(true)
}

// impersonating is the envtest admin acting as user with groups: what the API server
// (and so the webhook) sees is that user, with the RBAC of that user and those groups.
func impersonating(env *testenv.Env, user string, groups ...string) *rest.Config {
	cfg := env.UserConfig("admin")
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
	cfg.QPS, cfg.Burst = 100, 200
	return cfg
}

var webhookDenial = regexp.MustCompile(`^admission webhook "([^"]+)" denied the request: `)

// denial returns the webhook's message of a refused request with the prefix the API server
// adds stripped, and the webhook's name; it fails when the error is anything else (RBAC,
// the CRD schema, a failed call) or is not the 403 Forbidden a denial is.
func denial(t testing.TB, err error) (webhook, message string) {
	t.Helper()
	if err == nil {
		return "", ""
	}
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		t.Fatalf("not an API error: %v", err)
	}
	s := st.Status()
	m := webhookDenial.FindStringSubmatch(s.Message)
	if m == nil {
		t.Fatalf("not a webhook denial: %v", err)
	}
	if s.Code != 403 || s.Reason != metav1.StatusReasonForbidden {
		t.Errorf("denial with status %d %q, want 403 Forbidden", s.Code, s.Reason)
	}
	return m[1], s.Message[len(m[0]):]
}
