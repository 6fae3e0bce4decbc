package policy

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func standingTeam() *v1alpha1.Team {
	i32 := func(n int32) *int32 { return &n }
	t := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{
		ResourceLimits: &v1alpha1.TeamResourceLimits{MaxClusters: i32(10)},
		Environments: []v1alpha1.EnvironmentSpec{
			{Name: "dev", Limits: &v1alpha1.EnvironmentLimits{MaxClustersPerMember: i32(2)}},
			{Name: "prod", Limits: &v1alpha1.EnvironmentLimits{MaxClusters: i32(2)}},
		},
	}}
	t.Name = "payments"
	return t
}

func standingCluster(name, env, creator string) v1alpha1.TenantCluster {
	c := v1alpha1.TenantCluster{}
	c.Name = name
	c.Labels = map[string]string{v1alpha1.LabelEnvironment: env}
	c.Annotations = map[string]string{v1alpha1.AnnotationCreatorEmail: creator}
	c.Spec.Workers.Replicas = 1
	c.Spec.Workers.MachineTemplate.CPU = 2
	c.Spec.Workers.MachineTemplate.Memory = resource.MustParse("4Gi")
	return c
}

// One status per team: the worst of the team's lines and its environments', with the
// limit that set it; the same answer team list and team get print.
func TestStandingOfTeam(t *testing.T) {
	for _, c := range []struct {
		name     string
		team     func(*v1alpha1.Team)
		clusters []v1alpha1.TenantCluster
		want     TeamStanding
	}{
		{"nothing near a cap: no limit set the status", nil,
			[]v1alpha1.TenantCluster{standingCluster("a", "dev", "carol@example.com")},
			TeamStanding{QuotaOK, ""}},
		{"an environment past its cap, the team's line OK", nil,
			[]v1alpha1.TenantCluster{standingCluster("a", "prod", "bob@example.com"), standingCluster("b", "prod", "bob@example.com"), standingCluster("c", "prod", "bob@example.com")},
			TeamStanding{QuotaExceeded, `env prod maxClusters: 3 of 2 (150%)`}},
		{"the team's own line", func(t *v1alpha1.Team) { t.Spec.ResourceLimits.MaxCPUCores = ptrQ("4") },
			[]v1alpha1.TenantCluster{standingCluster("a", "dev", "carol@example.com"), standingCluster("b", "prod", "bob@example.com")},
			TeamStanding{QuotaWarning, `maxCPUCores: 4 of 4 (100%)`}},
		{"a zero maxClusters", func(t *v1alpha1.Team) { z := int32(0); t.Spec.ResourceLimits.MaxClusters = &z },
			[]v1alpha1.TenantCluster{standingCluster("a", "dev", "carol@example.com")},
			TeamStanding{QuotaExceeded, `maxClusters: 1 of 0 (over a limit of zero)`}},
		{"a cluster without its creator", nil,
			[]v1alpha1.TenantCluster{standingCluster("a", "dev", "")},
			TeamStanding{QuotaWarning, `cluster "a" has no butler.butlerlabs.dev/creator-email annotation, which environment "dev" requires (it sets maxClustersPerMember)`}},
		{"no limits at all", func(t *v1alpha1.Team) { t.Spec.ResourceLimits, t.Spec.Environments = nil, nil },
			[]v1alpha1.TenantCluster{standingCluster("a", "", "")},
			TeamStanding{QuotaOK, ""}},
	} {
		team := standingTeam()
		if c.team != nil {
			c.team(team)
		}
		if got := StandingOfTeam(team, c.clusters); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func ptrQ(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

// A limit below usage is named with its figures; one already below before is not news.
func TestNewlyBelowUsage(t *testing.T) {
	old := standingTeam()
	clusters := []v1alpha1.TenantCluster{standingCluster("a", "dev", "carol@example.com"), standingCluster("b", "dev", "carol@example.com"), standingCluster("c", "prod", "bob@example.com")}
	updated := old.DeepCopy()
	updated.Spec.ResourceLimits.MaxClusters = ptr32(2)
	updated.Spec.ResourceLimits.MaxMemory = ptrQ("8Gi")
	updated.Spec.Environments[0].Limits.MaxClustersPerMember = ptr32(1)
	updated.Spec.Environments[1].Limits.MaxClusters = ptr32(1) // 1 of 1: at the cap, not below
	want := []string{
		`maxClusters is 2, below the 3 clusters team "payments" uses: creates are refused until some are deleted`,
		`maxMemory is 8Gi, below the 12Gi memory team "payments" uses: creates and scale-ups that need more are refused until usage drops`,
		`environment "dev" maxClustersPerMember is 1, below the 2 cluster(s) carol@example.com owns there: their creates there are refused until some are deleted`,
	}
	got := NewlyBelowUsage(old, updated, clusters)
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got  %q\nwant %q", got[i], want[i])
		}
	}
	if again := NewlyBelowUsage(updated, updated, clusters); len(again) != 0 {
		t.Errorf("unchanged limits warned again: %q", again)
	}
}

func ptr32(n int32) *int32 { return &n }
