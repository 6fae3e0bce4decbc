package teamedit_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// On a real API server: someone else adds an environment between Apply's read and its
// patch. The patch's resourceVersion precondition makes the server answer 409 Conflict;
// Apply reads again and adds its own environment to that, so the team ends with both.
func TestApplyRetriesOnConflictLive(t *testing.T) {
	env := testenv.Start(t)
	ctx := context.Background()
	if err := env.ResetToExample(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := live.New(live.Options{Kubeconfig: env.Kubeconfig(testenv.Olivia)})
	if err != nil {
		t.Fatal(err)
	}
	team, err := s.GetTeam(ctx, "payments")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	a, err := teamedit.Apply(ctx, s, team, func(old *v1alpha1.Team) (*v1alpha1.Team, error) {
		calls++
		if calls == 1 {
			// The other writer, after our read.
			var cur v1alpha1.Team
			if err := env.Client.Get(ctx, client.ObjectKey{Name: "payments"}, &cur); err != nil {
				return nil, err
			}
			cur.Spec.Environments = append(cur.Spec.Environments, v1alpha1.EnvironmentSpec{Name: "qa"})
			if err := env.Client.Update(ctx, &cur); err != nil {
				return nil, err
			}
		}
		updated := old.DeepCopy()
		updated.Spec.Environments = append(updated.Spec.Environments, v1alpha1.EnvironmentSpec{Name: "staging"})
		return updated, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Errorf("change ran %d times, want 2 (one Conflict)", calls)
	}
	var got v1alpha1.Team
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "payments"}, &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got.Spec.Environments {
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "dev,prod,qa,staging" {
		t.Errorf("environments %v, want dev,prod,qa,staging", names)
	}
	if a.Old.ResourceVersion == team.ResourceVersion {
		t.Error("the write was not based on a fresh read")
	}
}
