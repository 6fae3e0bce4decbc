package create

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
)

// --environments: each named environment with the --env-* defaults, in the created Team.
func TestCreateWithEnvironments(t *testing.T) {
	s, r := exec(t, "olivia@example.com", factory.GlobalOptions{}, "checkout", "--access-user", "alice@example.com:admin",
		"--environments", "dev,staging", "--env-max-clusters", "4")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if len(s.Created) != 1 {
		t.Fatalf("created %d teams", len(s.Created))
	}
	envs := s.Created[0].Spec.Environments
	if len(envs) != 2 || envs[0].Name != "dev" || envs[1].Name != "staging" {
		t.Fatalf("environments %+v", envs)
	}
	for _, e := range envs {
		if e.Limits == nil || e.Limits.MaxClusters == nil || *e.Limits.MaxClusters != 4 || e.Limits.MaxClustersPerMember != nil {
			t.Errorf("environment %s limits %+v", e.Name, e.Limits)
		}
	}
}
