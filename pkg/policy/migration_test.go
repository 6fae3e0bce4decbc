package policy_test

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Helpers carry an "mg" prefix so they cannot clash with other test files of the package.

// mgCluster is a payments cluster in env ("" for none) owned by owner ("" for nobody).
func mgCluster(name, env, owner string) v1alpha1.TenantCluster {
	c := v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "payments",
			Labels:      map[string]string{v1alpha1.LabelTeam: "payments"},
			Annotations: map[string]string{},
		},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: "v1.31.0",
			TeamRef:           &v1alpha1.LocalObjectReference{Name: "payments"},
			ProviderConfigRef: &v1alpha1.ProviderReference{Name: "harvester-prod", Namespace: "butler-system"},
			Workers: v1alpha1.WorkersSpec{Replicas: 2, MachineTemplate: v1alpha1.MachineTemplate{
				CPU: 2, Memory: resource.MustParse("4Gi"), DiskSize: resource.MustParse("100Gi")}},
		},
	}
	if env != "" {
		c.Labels[v1alpha1.LabelEnvironment] = env
	}
	if owner != "" {
		c.Annotations[v1alpha1.AnnotationCreatorEmail] = owner
		c.Annotations[v1alpha1.AnnotationOwner] = owner
	}
	return c
}

// mgExample is the clusters of examples/payments.
func mgExample() []v1alpha1.TenantCluster {
	return []v1alpha1.TenantCluster{
		mgCluster("bob-checkout", "prod", "bob@example.com"),
		mgCluster("carol-sandbox-1", "dev", "carol@example.com"),
		mgCluster("carol-sandbox-2", "dev", "carol@example.com"),
		mgCluster("ledger-legacy", "", "alice@example.com"),
	}
}

var mgPC = &v1alpha1.ProviderConfig{
	ObjectMeta: metav1.ObjectMeta{Name: "harvester-prod", Namespace: "butler-system"},
	Spec:       v1alpha1.ProviderConfigSpec{Provider: "harvester"},
}

func mgProvider(ref *v1alpha1.ProviderReference) (*v1alpha1.ProviderConfig, bool) {
	if ref.Name == mgPC.Name {
		return mgPC, true
	}
	return nil, false
}

func mgRequest(env string, clusters []v1alpha1.TenantCluster, sel policy.MigrationSelection) policy.MigrationRequest {
	return policy.MigrationRequest{
		Team: exPayments(), Environment: env, Clusters: clusters, Selection: sel,
		ProviderConfig: mgProvider, Username: "alice@example.com",
	}
}

func mgMoves(ms []policy.MigrationMove) []string {
	out := []string{}
	for _, m := range ms {
		from := m.From
		if from == "" {
			from = "(unlabeled)"
		}
		out = append(out, m.Cluster+":"+from+"->"+m.To)
	}
	return out
}

func mgSkips(ss []policy.MigrationSkip) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.Cluster+":"+s.Reason)
	}
	return out
}

func TestPlanMigrationSelection(t *testing.T) {
	sel := func(s string) labels.Selector {
		l, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	cases := []struct {
		name    string
		env     string
		sel     policy.MigrationSelection
		relabel bool
		moves   []string
		skips   []string
	}{
		{"named legacy into prod", "prod", policy.MigrationSelection{Names: []string{"ledger-legacy"}}, false,
			[]string{"ledger-legacy:(unlabeled)->prod"}, []string{}},
		{"named: in target, other env, missing, duplicate", "prod",
			policy.MigrationSelection{Names: []string{"bob-checkout", "carol-sandbox-1", "nope", "ledger-legacy", "nope"}}, false,
			[]string{"ledger-legacy:(unlabeled)->prod"},
			[]string{"nope:not-found", "bob-checkout:already-in-target", "carol-sandbox-1:other-environment"}},
		{"all into dev without relabel", "dev", policy.MigrationSelection{All: true}, false,
			[]string{"ledger-legacy:(unlabeled)->dev"},
			[]string{"bob-checkout:other-environment", "carol-sandbox-1:already-in-target", "carol-sandbox-2:already-in-target"}},
		{"all into dev with relabel", "dev", policy.MigrationSelection{All: true}, true,
			[]string{"bob-checkout:prod->dev", "ledger-legacy:(unlabeled)->dev"},
			[]string{"carol-sandbox-1:already-in-target", "carol-sandbox-2:already-in-target"}},
		{"selector: unlabelled only", "prod", policy.MigrationSelection{Selector: sel("!" + v1alpha1.LabelEnvironment)}, false,
			[]string{"ledger-legacy:(unlabeled)->prod"}, []string{}},
		{"selector: dev clusters, relabel", "prod", policy.MigrationSelection{Selector: sel(v1alpha1.LabelEnvironment + "=dev")}, true,
			[]string{"carol-sandbox-1:dev->prod", "carol-sandbox-2:dev->prod"}, []string{}},
		{"nothing selected", "prod", policy.MigrationSelection{}, false, []string{}, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := mgRequest(c.env, mgExample(), c.sel)
			req.Relabel = c.relabel
			p := policy.PlanMigration(req)
			if got := mgMoves(p.Moves); !reflect.DeepEqual(got, c.moves) {
				t.Errorf("moves = %v, want %v", got, c.moves)
			}
			if got := mgSkips(p.Skipped); !reflect.DeepEqual(got, c.skips) {
				t.Errorf("skipped = %v, want %v", got, c.skips)
			}
			if p.Team != "payments" || p.Namespace != "payments" || p.Environment != c.env {
				t.Errorf("plan header = %q %q %q", p.Team, p.Namespace, p.Environment)
			}
		})
	}
}

func TestPlanMigrationMessages(t *testing.T) {
	clusters := append(mgExample(),
		mgCluster("gone", "", "bob@example.com"),
		mgCluster("other", "", "bob@example.com"),
		mgCluster("dangling", "qa", "bob@example.com"),
	)
	now := metav1.Now()
	clusters[4].DeletionTimestamp = &now
	clusters[5].Spec.TeamRef.Name = "ledger"
	p := policy.PlanMigration(mgRequest("prod", clusters, policy.MigrationSelection{Names: []string{
		"bob-checkout", "carol-sandbox-1", "gone", "other", "dangling", "missing"}}))
	want := map[string]string{
		"bob-checkout":    `already in environment "prod"`,
		"carol-sandbox-1": `in environment "dev"`,
		"gone":            `being deleted`,
		"other":           `belongs to team "ledger" (spec.teamRef), not "payments"`,
		"dangling":        `in environment "qa", which team "payments" no longer defines`,
		"missing":         `not found in namespace payments`,
	}
	if len(p.Skipped) != len(want) || len(p.Moves) != 0 {
		t.Fatalf("plan = %+v", p)
	}
	for _, s := range p.Skipped {
		if s.Message != want[s.Cluster] {
			t.Errorf("%s: message %q, want %q", s.Cluster, s.Message, want[s.Cluster])
		}
	}
	if p.Skipped[0].Cluster != "missing" || p.Skipped[0].From != "" {
		t.Errorf("not-found first: %+v", p.Skipped[0])
	}
}

func TestPlanMigrationCleanup(t *testing.T) {
	clusters := mgExample()
	clusters[0].Annotations[v1alpha1.AnnotationMigration] = "true" // bob-checkout, in prod
	p := policy.PlanMigration(mgRequest("prod", clusters, policy.MigrationSelection{All: true}))
	if got := mgMoves(p.Cleanups); !reflect.DeepEqual(got, []string{"bob-checkout:prod->prod"}) || !p.Cleanups[0].Cleanup {
		t.Errorf("cleanups = %v", p.Cleanups)
	}
	if got := mgMoves(p.Moves); !reflect.DeepEqual(got, []string{"ledger-legacy:(unlabeled)->prod"}) {
		t.Errorf("moves = %v", got)
	}
}

func TestPlanMigrationRefusedByServerRules(t *testing.T) {
	clusters := mgExample()
	clusters[3].Spec.Workers.Replicas = 5 // ledger-legacy, over the per-cluster node limit below
	team := exPayments()
	team.Spec.ResourceLimits.MaxNodesPerCluster = exI32(3)
	req := mgRequest("prod", clusters, policy.MigrationSelection{All: true})
	req.Team = team
	p := policy.PlanMigration(req)
	if len(p.Moves) != 0 {
		t.Fatalf("moves = %v", p.Moves)
	}
	var got *policy.MigrationSkip
	for i := range p.Skipped {
		if p.Skipped[i].Cluster == "ledger-legacy" {
			got = &p.Skipped[i]
		}
	}
	want := `spec.workers.replicas: Forbidden: worker replicas (5) exceeds team "payments" per-cluster node limit (3)`
	if got == nil || got.Reason != policy.SkipRefused || got.Message != want {
		t.Fatalf("ledger-legacy = %+v, want refused %q", got, want)
	}

	// A ProviderConfig that is gone: the server refuses every update of the cluster.
	req = mgRequest("prod", mgExample(), policy.MigrationSelection{Names: []string{"ledger-legacy"}})
	req.ProviderConfig = func(*v1alpha1.ProviderReference) (*v1alpha1.ProviderConfig, bool) { return nil, false }
	p = policy.PlanMigration(req)
	if len(p.Skipped) != 1 || p.Skipped[0].Message != `spec.providerConfigRef.name: Not found: "harvester-prod"` {
		t.Fatalf("skipped = %+v", p.Skipped)
	}
	// ProviderConfigs unknown (nil func): left to the server.
	req.ProviderConfig = nil
	p = policy.PlanMigration(req)
	if len(p.Moves) != 1 {
		t.Fatalf("unknown provider: plan = %+v", p)
	}
}

// The first patch must pass the server's update rules: the env label changes only with
// the annotation, and nothing else of the object changes.
func TestMigrationPatchedPassesUpdateRules(t *testing.T) {
	clusters := mgExample()
	for i := range clusters {
		c := &clusters[i]
		for _, env := range []string{"dev", "prod"} {
			n := policy.MigrationPatched(c, env)
			d := policy.AdmitCluster(policy.ClusterRequest{Operation: policy.Update, Cluster: n, Old: c,
				Team: exPayments(), Siblings: clusters, ProviderConfig: mgPC, Username: "alice@example.com"})
			if !d.Allowed() {
				t.Errorf("%s -> %s: %v", c.Name, env, d.Err())
			}
			// Without the annotation the server refuses any change of the label.
			delete(n.Annotations, v1alpha1.AnnotationMigration)
			d = policy.AdmitCluster(policy.ClusterRequest{Operation: policy.Update, Cluster: n, Old: c,
				Team: exPayments(), Siblings: clusters, ProviderConfig: mgPC})
			if c.Labels[v1alpha1.LabelEnvironment] != env && d.Allowed() {
				t.Errorf("%s -> %s without annotation allowed", c.Name, env)
			}
			// Nothing else changed.
			n.Labels[v1alpha1.LabelEnvironment] = c.Labels[v1alpha1.LabelEnvironment]
			if c.Labels[v1alpha1.LabelEnvironment] == "" {
				delete(n.Labels, v1alpha1.LabelEnvironment)
			}
			if !reflect.DeepEqual(n, c) {
				t.Errorf("%s: the patch changed more than the label and annotation", c.Name)
			}
		}
	}
}

func TestPlanMigrationCaps(t *testing.T) {
	// prod: maxClusters 6, maxClustersPerMember 1; bob has bob-checkout there.
	clusters := mgExample()
	for _, n := range []string{"p1", "p2", "p3", "p4"} {
		clusters = append(clusters, mgCluster(n, "prod", "olivia@example.com"))
	}
	// prod now has 5 clusters: bob 1, olivia 4 (over her cap already; nothing of hers moves).
	clusters = append(clusters,
		mgCluster("legacy-a", "", "alice@example.com"),
		mgCluster("legacy-b", "", "Alice@Example.com"),
		mgCluster("legacy-c", "", "bob@example.com"),
		mgCluster("legacy-d", "", ""),
	)
	req := mgRequest("prod", clusters, policy.MigrationSelection{Names: []string{"ledger-legacy", "legacy-a", "legacy-b", "legacy-c", "legacy-d"}})
	p := policy.PlanMigration(req)
	if len(p.Moves) != 5 {
		t.Fatalf("moves = %v", mgMoves(p.Moves))
	}
	want := []policy.CapExcess{
		{Cap: policy.CapMaxClusters, Current: 5, Moving: 5, After: 10, Limit: 6, Over: 4,
			Clusters: []string{"ledger-legacy", "legacy-a", "legacy-b", "legacy-c", "legacy-d"},
			Message:  `environment "prod" of team "payments" would have 10 cluster(s), 4 over its maxClusters cap of 6: it has 5 and this plan moves 5 into it`},
		{Cap: policy.CapMaxClustersPerMember, Member: "alice@example.com", Current: 0, Moving: 3, After: 3, Limit: 1, Over: 2,
			Clusters: []string{"ledger-legacy", "legacy-a", "legacy-b"},
			Message:  `user "alice@example.com" would own 3 cluster(s) in environment "prod", 2 over its maxClustersPerMember cap of 1: they own 0 there and this plan moves 3 of theirs into it (ledger-legacy, legacy-a, legacy-b)`},
		{Cap: policy.CapMaxClustersPerMember, Member: "bob@example.com", Current: 1, Moving: 1, After: 2, Limit: 1, Over: 1,
			Clusters: []string{"legacy-c"},
			Message:  `user "bob@example.com" would own 2 cluster(s) in environment "prod", 1 over its maxClustersPerMember cap of 1: they own 1 there and this plan moves 1 of theirs into it (legacy-c)`},
	}
	if !reflect.DeepEqual(p.Excess, want) {
		t.Errorf("excess =\n%+v\nwant\n%+v", p.Excess, want)
	}
	if !p.Refused() {
		t.Error("not refused")
	}
	req.AllowOverQuota = true
	if p := policy.PlanMigration(req); p.Refused() || len(p.Excess) != 3 {
		t.Errorf("allowed over quota: refused=%v excess=%d", p.Refused(), len(p.Excess))
	}

	// Exactly at the caps is allowed: ledger-legacy alone into prod (alice 0 -> 1, prod 1 -> 2).
	p = policy.PlanMigration(mgRequest("prod", mgExample(), policy.MigrationSelection{Names: []string{"ledger-legacy"}}))
	if len(p.Excess) != 0 || p.Refused() {
		t.Errorf("at the cap: %+v", p.Excess)
	}
	// dev has no env cap; carol at 2 of 2 gets a third by relabel: refused.
	extra := append(mgExample(), mgCluster("carol-prod", "prod", "carol@example.com"))
	req = mgRequest("dev", extra, policy.MigrationSelection{Names: []string{"carol-prod"}})
	req.Relabel = true
	p = policy.PlanMigration(req)
	if len(p.Excess) != 1 || p.Excess[0].Member != "carol@example.com" || p.Excess[0].Over != 1 || p.Relabels() != 1 {
		t.Errorf("carol relabel: %+v", p)
	}
	// Clusters being deleted still count toward the caps, as on the server.
	withDeleting := mgExample()
	now := metav1.Now()
	withDeleting[0].DeletionTimestamp = &now // bob-checkout, prod
	p = policy.PlanMigration(mgRequest("prod", append(withDeleting, mgCluster("bob-legacy", "", "bob@example.com")),
		policy.MigrationSelection{Names: []string{"bob-legacy"}}))
	if len(p.Excess) != 1 || !strings.Contains(p.Excess[0].Message, `user "bob@example.com" would own 2`) {
		t.Errorf("deleting counts: %+v", p.Excess)
	}
}

// A re-run plans nothing: every moved cluster is then in the target.
func TestPlanMigrationRerunIsNoop(t *testing.T) {
	clusters := mgExample()
	req := mgRequest("dev", clusters, policy.MigrationSelection{All: true})
	req.Relabel = true
	p := policy.PlanMigration(req)
	for _, m := range p.Moves {
		for i := range clusters {
			if clusters[i].Name == m.Cluster {
				clusters[i].Labels[v1alpha1.LabelEnvironment] = m.To
			}
		}
	}
	req.Clusters = clusters
	p = policy.PlanMigration(req)
	if len(p.Moves) != 0 || len(p.Cleanups) != 0 || p.Count(policy.SkipAlreadyInTarget) != 4 {
		t.Errorf("re-run plan = %+v", p)
	}
}

func TestClassifyMigrationAfterConflict(t *testing.T) {
	req := mgRequest("prod", mgExample(), policy.MigrationSelection{All: true})
	c := mgCluster("ledger-legacy", "", "alice@example.com")
	if st := policy.ClassifyMigration(req, &c); st.Skip != nil || st.Move.From != "" {
		t.Fatalf("before: %+v", st)
	}
	// Someone put it in dev meanwhile: without --relabel it now stays there.
	c.Labels[v1alpha1.LabelEnvironment] = "dev"
	if st := policy.ClassifyMigration(req, &c); st.Skip == nil || st.Skip.Reason != policy.SkipOtherEnvironment {
		t.Fatalf("moved to dev meanwhile: %+v", st)
	}
	// Someone finished the job meanwhile.
	c.Labels[v1alpha1.LabelEnvironment] = "prod"
	if st := policy.ClassifyMigration(req, &c); st.Skip == nil || st.Skip.Reason != policy.SkipAlreadyInTarget {
		t.Fatalf("moved to prod meanwhile: %+v", st)
	}
}
