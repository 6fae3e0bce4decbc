package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Helpers carry an "ac" prefix so they cannot clash with other test files of the package.

func acI32(v int32) *int32 { return &v }

func acQty(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

const (
	acAlice = "alice@example.com"
	acBob   = "bob@example.com"
	acCarol = "carol@example.com"
)

// acPayments is the worked example (examples/payments) with the addresses restored.
func acPayments() *v1alpha1.Team {
	return &v1alpha1.Team{
		ObjectMeta: metav1.ObjectMeta{Name: "payments"},
		Spec: v1alpha1.TeamSpec{
			Access: v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{
				{Name: acAlice, Role: v1alpha1.RoleAdmin},
				{Name: acBob, Role: v1alpha1.RoleOperator},
				{Name: acCarol, Role: v1alpha1.RoleOperator},
			}},
			ResourceLimits: &v1alpha1.TeamResourceLimits{MaxClusters: acI32(20)},
			ClusterDefaults: &v1alpha1.ClusterDefaults{
				KubernetesVersion: "v1.31.0", WorkerCount: acI32(2), WorkerCPU: acI32(2), WorkerMemoryGi: acI32(4),
			},
			Environments: []v1alpha1.EnvironmentSpec{
				{
					Name:            "dev",
					Limits:          &v1alpha1.EnvironmentLimits{MaxClustersPerMember: acI32(2)},
					ClusterDefaults: &v1alpha1.ClusterDefaults{WorkerMemoryGi: acI32(2)},
				},
				{
					Name:   "prod",
					Limits: &v1alpha1.EnvironmentLimits{MaxClusters: acI32(6), MaxClustersPerMember: acI32(1)},
					Access: &v1alpha1.TeamAccess{Users: []v1alpha1.TeamUser{{Name: acBob, Role: v1alpha1.RoleAdmin}}},
					ClusterDefaults: &v1alpha1.ClusterDefaults{
						WorkerCount: acI32(3), WorkerCPU: acI32(4), WorkerMemoryGi: acI32(8),
					},
				},
			},
		},
		Status: v1alpha1.TeamStatus{Namespace: "payments"},
	}
}

func acPC() *v1alpha1.ProviderConfig {
	return &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "harvester-prod", Namespace: "butler-system"},
		Spec:       v1alpha1.ProviderConfigSpec{Provider: v1alpha1.ProviderHarvester},
	}
}

// acTC is a TenantCluster of team payments on harvester-prod, created by creator in env
// (either may be "": no label, no annotation), with the env's default shape.
func acTC(name, env, creator string) v1alpha1.TenantCluster {
	c := v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "payments", Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: "v1.31.0",
			TeamRef:           &v1alpha1.LocalObjectReference{Name: "payments"},
			ProviderConfigRef: &v1alpha1.ProviderReference{Name: "harvester-prod"},
			Workers: v1alpha1.WorkersSpec{Replicas: 2, MachineTemplate: v1alpha1.MachineTemplate{
				CPU: 2, Memory: resource.MustParse("2Gi"), DiskSize: resource.MustParse("100Gi"),
			}},
		},
	}
	if env == "prod" {
		c.Spec.Workers.Replicas, c.Spec.Workers.MachineTemplate.CPU = 3, 4
		c.Spec.Workers.MachineTemplate.Memory = resource.MustParse("8Gi")
	}
	if env != "" {
		c.Labels[v1alpha1.LabelEnvironment] = env
	}
	if creator != "" {
		c.Annotations[v1alpha1.AnnotationCreatorEmail] = creator
		c.Annotations[v1alpha1.AnnotationOwner] = creator // promoted by the controller
	}
	return c
}

// acFleet makes n clusters named prefix-i in env owned by the owners in turn.
func acFleet(prefix, env string, n int, owners ...string) []v1alpha1.TenantCluster {
	out := make([]v1alpha1.TenantCluster, n)
	for i := range out {
		owner := ""
		if len(owners) > 0 {
			owner = owners[i%len(owners)]
		}
		out[i] = acTC(fmt.Sprintf("%s-%d", prefix, i), env, owner)
	}
	return out
}

// acCreate is a create of a new cluster by who in env.
func acCreate(who, env string, siblings []v1alpha1.TenantCluster) policy.ClusterRequest {
	c := acTC("new", env, who)
	return policy.ClusterRequest{
		Operation: policy.Create, Cluster: &c, Team: acPayments(), Siblings: siblings,
		ProviderConfig: acPC(), Username: who,
	}
}

func acJoin(lists ...[]v1alpha1.TenantCluster) []v1alpha1.TenantCluster {
	var out []v1alpha1.TenantCluster
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// acExpect admits req and compares Err() with want ("" = allowed), then checks the decision's
// invariants and that the webhook transcription agrees.
func acExpect(t *testing.T, req policy.ClusterRequest, want string) policy.Decision {
	t.Helper()
	d := policy.AdmitCluster(req)
	got := ""
	if err := d.Err(); err != nil {
		got = err.Error()
	}
	if got != want {
		t.Fatalf("AdmitCluster:\n got: %s\nwant: %s", got, want)
	}
	acCheckDecision(t, req, d)
	oracle := ""
	if err := acOracle(req); err != nil {
		oracle = err.Error()
	}
	if oracle != want {
		t.Fatalf("webhook transcription disagrees with the expectation:\n got: %s\nwant: %s", oracle, want)
	}
	return d
}

func acFindCheck(t *testing.T, d policy.Decision, rule string) policy.Check {
	t.Helper()
	for _, c := range d.Checks {
		if c.Rule == rule {
			return c
		}
	}
	t.Fatalf("no check %s in %+v", rule, d.Checks)
	return policy.Check{}
}

func acHasCheck(d policy.Decision, rule string) bool {
	for _, c := range d.Checks {
		if c.Rule == rule {
			return true
		}
	}
	return false
}

// The exact messages of docs/rules.md §5.
const (
	acMsgImmutable = "metadata.labels[butler.butlerlabs.dev/environment]: Forbidden: env label changes require the \"butler.butlerlabs.dev/migration-operation\" annotation set to \"true\"; use `butleradm env migrate`"
	acMsgLabelReq  = `metadata.labels[butler.butlerlabs.dev/environment]: Required value: team "payments" defines environments; TenantClusters must carry this label set to one of the team's env names`
	acMsgCreatorRq = `metadata.annotations[butler.butlerlabs.dev/creator-email]: Required value: environment "%s" sets maxClustersPerMember; TenantClusters must carry the butler.butlerlabs.dev/creator-email annotation (set automatically by butler-server; kubectl-direct creates must supply it explicitly)`
	acMsgMismatch  = `metadata.annotations[butler.butlerlabs.dev/creator-email]: Invalid value: "%s": butler.butlerlabs.dev/creator-email must match the requesting identity "%s"; environment "%s" enforces per-member caps and cannot accept an annotation claiming a different user`
	acMsgImmutCrt  = `metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: butler.butlerlabs.dev/creator-email is immutable; cannot change from "%s" to "%s"`
	acMsgOwns      = `metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: user "%s" already owns %d cluster(s) in environment "%s"; env limits to %d per member`
	acMsgEnvCap    = `spec: Forbidden: environment "%s" in team "payments" already has %d cluster(s); env quota limits to %d`
	acMsgTeamCap   = `spec: Forbidden: team "payments" already has %d cluster(s); team quota limits to %d`
)

// ---------------------------------------------------------------------------------------
// The five quota scenarios of the worked example.

func TestWorkedExampleScenarios(t *testing.T) {
	carolDev := acFleet("carol-dev", "dev", 2, acCarol)

	t.Run("carol has 2 in dev and wants a 3rd in dev", func(t *testing.T) {
		d := acExpect(t, acCreate(acCarol, "dev", carolDev), fmt.Sprintf(acMsgOwns, acCarol, 2, "dev", 2))
		c := acFindCheck(t, d, policy.RuleMemberMaxClusters)
		if c.Allowed || c.Limit != "2" || c.Usage != "2" || c.Requested != "1" || c.After != "3" {
			t.Fatalf("check: %+v", c)
		}
		// the detail S000 quotes
		if !strings.HasSuffix(d.Err().Error(), `user "carol@example.com" already owns 2 cluster(s) in environment "dev"; env limits to 2 per member`) {
			t.Fatal(d.Err())
		}
	})
	t.Run("carol has 2 in dev and wants 1 in prod", func(t *testing.T) {
		d := acExpect(t, acCreate(acCarol, "prod", carolDev), "")
		if c := acFindCheck(t, d, policy.RuleTeamMaxClusters); !c.Allowed || c.Usage != "2" || c.After != "3" || c.Limit != "20" {
			t.Fatalf("team check: %+v", c)
		}
		if c := acFindCheck(t, d, policy.RuleEnvMaxClusters); !c.Allowed || c.Usage != "0" || c.After != "1" || c.Limit != "6" {
			t.Fatalf("env check: %+v", c)
		}
	})
	t.Run("bob has 1 in prod and wants a 2nd in prod", func(t *testing.T) {
		acExpect(t, acCreate(acBob, "prod", acFleet("bob-prod", "prod", 1, acBob)), fmt.Sprintf(acMsgOwns, acBob, 1, "prod", 1))
	})
	t.Run("6 prod clusters: the next prod create is rejected for everyone", func(t *testing.T) {
		prod := acFleet("prod", "prod", 6, "dave@example.com", "erin@example.com", "frank@example.com",
			"grace@example.com", "heidi@example.com", "ivan@example.com")
		for _, who := range []string{acAlice, acBob, acCarol} {
			acExpect(t, acCreate(who, "prod", prod), fmt.Sprintf(acMsgEnvCap, "prod", 6, 6))
		}
		// regardless of the per-member cap: carol owning one of them gets both messages
		prod[0] = acTC("prod-0", "prod", acCarol)
		acExpect(t, acCreate(acCarol, "prod", prod),
			"["+fmt.Sprintf(acMsgEnvCap, "prod", 6, 6)+", "+fmt.Sprintf(acMsgOwns, acCarol, 1, "prod", 1)+"]")
		// with 5 there is room
		acExpect(t, acCreate(acAlice, "prod", prod[1:]), "")
		// dev has no env cap, only the per-member one
		acExpect(t, acCreate(acAlice, "dev", prod), "")
	})
	t.Run("20 clusters in the team: the next create in any env is rejected", func(t *testing.T) {
		all := acJoin(acFleet("p", "prod", 4, "dave@example.com"), acFleet("d", "dev", 16, "erin@example.com", "frank@example.com"))
		for _, env := range []string{"dev", "prod"} {
			for _, who := range []string{acAlice, acBob, acCarol} {
				acExpect(t, acCreate(who, env, all), fmt.Sprintf(acMsgTeamCap, 20, 20))
			}
		}
		acExpect(t, acCreate(acAlice, "dev", all[1:]), "") // 19 + 1 = 20 fits
	})
}

// ---------------------------------------------------------------------------------------
// Step 0: environment label immutability (update only, first and alone).

func acUpdate(old, cur v1alpha1.TenantCluster, who string, siblings []v1alpha1.TenantCluster) policy.ClusterRequest {
	return policy.ClusterRequest{
		Operation: policy.Update, Cluster: &cur, Old: &old, Team: acPayments(),
		Siblings: siblings, ProviderConfig: acPC(), Username: who,
	}
}

func TestEnvLabelImmutability(t *testing.T) {
	old := acTC("c1", "dev", acCarol)
	sibs := []v1alpha1.TenantCluster{old}

	moved := *old.DeepCopy()
	moved.Labels[v1alpha1.LabelEnvironment] = "prod"
	acExpect(t, acUpdate(old, moved, acCarol, sibs), acMsgImmutable)

	// alone: a replica count beyond the per-cluster limit is not reported with it
	team := acPayments()
	team.Spec.ResourceLimits.MaxNodesPerCluster = acI32(1)
	req := acUpdate(old, moved, acCarol, sibs)
	req.Team = team
	d := acExpect(t, req, acMsgImmutable)
	if len(d.Checks) != 1 || d.Checks[0].Usage != "dev" || d.Checks[0].Requested != "prod" {
		t.Fatalf("checks: %+v", d.Checks)
	}

	for _, v := range []string{"True", "false", "yes", ""} {
		m := *moved.DeepCopy()
		m.Annotations[v1alpha1.AnnotationMigration] = v
		acExpect(t, acUpdate(old, m, acCarol, sibs), acMsgImmutable)
	}
	migrated := *moved.DeepCopy()
	migrated.Annotations[v1alpha1.AnnotationMigration] = "true"
	acExpect(t, acUpdate(old, migrated, acCarol, sibs), "") // no env cap or per-member cap on update

	// adding a label to an unlabelled cluster is a change too
	legacy := acTC("legacy", "", acCarol)
	labelled := *legacy.DeepCopy()
	labelled.Labels[v1alpha1.LabelEnvironment] = "dev"
	acExpect(t, acUpdate(legacy, labelled, acCarol, nil), acMsgImmutable)
	labelled.Annotations[v1alpha1.AnnotationMigration] = "true"
	acExpect(t, acUpdate(legacy, labelled, acCarol, nil), "")

	// removing it: forbidden without the annotation, and with it the label is still required
	cleared := *old.DeepCopy()
	delete(cleared.Labels, v1alpha1.LabelEnvironment)
	acExpect(t, acUpdate(old, cleared, acCarol, sibs), acMsgImmutable)
	cleared.Annotations[v1alpha1.AnnotationMigration] = "true"
	acExpect(t, acUpdate(old, cleared, acCarol, sibs), acMsgLabelReq)

	// an unchanged label passes whatever the annotation says
	same := *old.DeepCopy()
	same.Annotations[v1alpha1.AnnotationMigration] = "false"
	acExpect(t, acUpdate(old, same, acCarol, sibs), "")

	// not evaluated on create
	if d := policy.AdmitCluster(acCreate(acCarol, "dev", nil)); acHasCheck(d, policy.RuleEnvLabelImmutable) {
		t.Fatal("immutability evaluated on create")
	}
}

// ---------------------------------------------------------------------------------------
// Environment checks.

func TestEnvLabelRequired(t *testing.T) {
	acExpect(t, acCreate(acCarol, "", nil), acMsgLabelReq)
	// required stops env checking, but provider and team checks still run
	team := acPayments()
	team.Spec.ResourceLimits.MaxClusters = acI32(0)
	req := acCreate(acCarol, "", nil)
	req.Team = team
	acExpect(t, req, "["+acMsgLabelReq+", "+fmt.Sprintf(acMsgTeamCap, 0, 0)+"]")

	// a legacy unlabelled cluster updated without touching the label is allowed
	legacy := acTC("legacy", "", "")
	scaled := *legacy.DeepCopy()
	scaled.Spec.Workers.Replicas = 5
	d := acExpect(t, acUpdate(legacy, scaled, acCarol, []v1alpha1.TenantCluster{legacy}), "")
	if c := acFindCheck(t, d, policy.RuleEnvLabelRequired); !c.Allowed {
		t.Fatalf("check: %+v", c)
	}
	// nil maps on both sides count as unlabelled
	legacy.Labels, scaled.Labels = nil, nil
	acExpect(t, acUpdate(legacy, scaled, acCarol, nil), "")

	// a team without environments needs no label
	team = acPayments()
	team.Spec.Environments = nil
	req = acCreate(acCarol, "", nil)
	req.Team = team
	acExpect(t, req, "")
	// no team (not found or no teamRef): no environment checks
	req = acCreate(acCarol, "", nil)
	req.Team = nil
	acExpect(t, req, "")
	req = acCreate(acCarol, "", nil)
	req.Cluster.Spec.TeamRef = nil // the team is ignored, as on the server
	acExpect(t, req, "")
}

func TestEnvUnknown(t *testing.T) {
	const msg = `metadata.labels[butler.butlerlabs.dev/environment]: Unsupported value: "%s": supported values: "dev", "prod"`
	d := acExpect(t, acCreate(acCarol, "staging", nil), fmt.Sprintf(msg, "staging"))
	if c := acFindCheck(t, d, policy.RuleEnvUnknown); c.Limit != `"dev", "prod"` || c.Requested != "staging" {
		t.Fatalf("check: %+v", c)
	}
	acExpect(t, acCreate(acCarol, "Dev", nil), fmt.Sprintf(msg, "Dev")) // exact, case-sensitive

	// a dangling label (env removed from the team) is tolerated on unchanged-label updates
	old := acTC("c1", "staging", acCarol)
	scaled := *old.DeepCopy()
	scaled.Spec.Workers.Replicas = 4
	acExpect(t, acUpdate(old, scaled, acCarol, nil), "")
	// but not when migrating into it
	dev := acTC("c2", "dev", acCarol)
	into := *dev.DeepCopy()
	into.Labels[v1alpha1.LabelEnvironment] = "staging"
	into.Annotations[v1alpha1.AnnotationMigration] = "true"
	acExpect(t, acUpdate(dev, into, acCarol, nil), fmt.Sprintf(msg, "staging"))
}

func TestEnvMaxClusters(t *testing.T) {
	five := acFleet("p", "prod", 5, "x@example.com", "y@example.com")
	acExpect(t, acCreate(acAlice, "prod", five), "") // 5 + 1 = 6: allowed
	six := acJoin(five, acFleet("q", "prod", 1, "z@example.com"))
	acExpect(t, acCreate(acAlice, "prod", six), fmt.Sprintf(acMsgEnvCap, "prod", 6, 6))

	// clusters being deleted still count
	deleting := acJoin(five, acFleet("q", "prod", 1, "z@example.com"))
	now := metav1.Now()
	deleting[5].DeletionTimestamp = &now
	acExpect(t, acCreate(acAlice, "prod", deleting), fmt.Sprintf(acMsgEnvCap, "prod", 6, 6))

	// unlabelled and other-env clusters do not count toward the env; a sibling with the new
	// cluster's name is ignored
	others := acJoin(five, acFleet("legacy", "", 3), acFleet("d", "dev", 3, "x@example.com"), []v1alpha1.TenantCluster{acTC("new", "prod", acAlice)})
	acExpect(t, acCreate(acAlice, "prod", others), "")

	// maxClusters 0 is no cap; unset is no cap
	for _, lim := range []*int32{acI32(0), nil} {
		req := acCreate(acAlice, "prod", acJoin(six, six))
		req.Team.Spec.Environments[1].Limits.MaxClusters = lim
		req.Team.Spec.ResourceLimits = nil
		d := acExpect(t, req, "")
		if acHasCheck(d, policy.RuleEnvMaxClusters) {
			t.Fatal("env cap evaluated without a cap")
		}
	}
	// create only: updating a cluster of a full environment is fine
	member := six[0]
	scaled := *member.DeepCopy()
	scaled.Spec.Workers.Replicas = 5
	acExpect(t, acUpdate(member, scaled, "x@example.com", acJoin(six, acFleet("r", "prod", 2, "x@example.com"))), "")

	// an environment without limits checks nothing further
	req := acCreate("", "dev", nil)
	req.Team.Spec.Environments[0].Limits = nil
	acExpect(t, req, "")
}

func TestPerMemberCap(t *testing.T) {
	// no creator annotation on create
	req := acCreate(acCarol, "prod", nil)
	delete(req.Cluster.Annotations, v1alpha1.AnnotationCreatorEmail)
	d := acExpect(t, req, fmt.Sprintf(acMsgCreatorRq, "prod"))
	if acHasCheck(d, policy.RuleMemberMaxClusters) {
		t.Fatal("first branch must stop the per-member evaluation")
	}
	req.Cluster.Annotations = nil
	acExpect(t, req, fmt.Sprintf(acMsgCreatorRq, "prod"))

	// a creator that is not the requester
	req = acCreate(acBob, "prod", acFleet("b", "prod", 3, acBob))
	req.Username = acCarol
	acExpect(t, req, fmt.Sprintf(acMsgMismatch, acBob, acCarol, "prod"))
	// compared case-insensitively; the creator is printed as written
	req = acCreate("Carol@Example.COM", "prod", nil)
	req.Username = acCarol
	acExpect(t, req, "")
	req.Username = ""
	acExpect(t, req, fmt.Sprintf(acMsgMismatch, "Carol@Example.COM", "", "prod"))

	// ownership: owner annotation, else creator-email; case-insensitive; neither = nobody
	a := acTC("a", "dev", "")
	a.Annotations[v1alpha1.AnnotationOwner] = "CAROL@example.com"
	a.Annotations[v1alpha1.AnnotationCreatorEmail] = acBob // owner wins
	b := acTC("b", "dev", "")
	b.Annotations[v1alpha1.AnnotationCreatorEmail] = "carol@EXAMPLE.com" // no owner yet
	c := acTC("c", "dev", "")                                            // nobody's
	legacy := acTC("legacy", "", acCarol)                                // no env: not counted
	prod := acTC("p", "prod", acCarol)                                   // another env
	sibs := []v1alpha1.TenantCluster{a, b, c, legacy, prod}
	acExpect(t, acCreate(acCarol, "dev", sibs), fmt.Sprintf(acMsgOwns, acCarol, 2, "dev", 2))
	acExpect(t, acCreate(acBob, "dev", sibs), "")
	acExpect(t, acCreate(acCarol, "dev", sibs[1:]), "") // 1 + 1 = 2: allowed
	now := metav1.Now()
	sibs[2].Annotations[v1alpha1.AnnotationOwner] = acCarol
	sibs[2].DeletionTimestamp = &now // being deleted, still counts
	acExpect(t, acCreate(acCarol, "dev", sibs[1:]), fmt.Sprintf(acMsgOwns, acCarol, 2, "dev", 2))

	// the cap binds every role: alice is team admin (and could be platform admin) and is capped
	acExpect(t, acCreate(acAlice, "prod", acFleet("al", "prod", 1, acAlice)), fmt.Sprintf(acMsgOwns, acAlice, 1, "prod", 1))

	// maxClustersPerMember 0 or unset: nothing required
	for _, lim := range []*int32{acI32(0), nil} {
		req := acCreate("", "dev", acFleet("x", "dev", 5, acCarol))
		req.Team.Spec.Environments[0].Limits.MaxClustersPerMember = lim
		acExpect(t, req, "")
	}

	// update: the creator is immutable (exact comparison); counts are not re-checked
	old := acTC("c1", "dev", acCarol)
	full := acFleet("x", "dev", 4, acCarol)
	changed := *old.DeepCopy()
	changed.Annotations[v1alpha1.AnnotationCreatorEmail] = acBob
	acExpect(t, acUpdate(old, changed, acBob, full), fmt.Sprintf(acMsgImmutCrt, acCarol, acBob))
	changed.Annotations[v1alpha1.AnnotationCreatorEmail] = "Carol@example.com"
	acExpect(t, acUpdate(old, changed, acCarol, full), fmt.Sprintf(acMsgImmutCrt, acCarol, "Carol@example.com"))
	delete(changed.Annotations, v1alpha1.AnnotationCreatorEmail)
	acExpect(t, acUpdate(old, changed, acCarol, full), fmt.Sprintf(acMsgImmutCrt, acCarol, ""))
	same := *old.DeepCopy()
	same.Spec.Workers.Replicas = 3
	acExpect(t, acUpdate(old, same, "someone-else@example.com", full), "") // identity not re-checked on update
	// immutability only matters where a per-member cap is set
	prodOld := acTC("c2", "dev", acCarol)
	prodNew := *prodOld.DeepCopy()
	prodNew.Annotations[v1alpha1.AnnotationCreatorEmail] = acBob
	req = acUpdate(prodOld, prodNew, acBob, nil)
	req.Team.Spec.Environments[0].Limits.MaxClustersPerMember = nil
	acExpect(t, req, "")
}

// ---------------------------------------------------------------------------------------
// Provider checks.

func TestProviderChecks(t *testing.T) {
	// no providerConfigRef: env errors only; team limits are not checked at all
	req := acCreate(acAlice, "dev", acFleet("d", "dev", 25, "x@example.com"))
	req.Cluster.Spec.ProviderConfigRef = nil
	req.ProviderConfig = nil
	d := acExpect(t, req, "")
	if acHasCheck(d, policy.RuleTeamMaxClusters) || acHasCheck(d, policy.RuleProviderNotFound) {
		t.Fatalf("checks: %+v", d.Checks)
	}
	req.Cluster.Labels = nil
	acExpect(t, req, acMsgLabelReq)

	// not found: added after the env errors, and nothing else is checked
	req = acCreate(acAlice, "", acFleet("d", "dev", 25, "x@example.com"))
	req.Cluster.Spec.ProviderConfigRef.Name = "missing"
	req.ProviderConfig = nil
	d = acExpect(t, req, "["+acMsgLabelReq+`, spec.providerConfigRef.name: Not found: "missing"]`)
	if c := acFindCheck(t, d, policy.RuleProviderNotFound); c.Requested != "butler-system/missing" {
		t.Fatalf("check: %+v", c)
	}
	if acHasCheck(d, policy.RuleTeamMaxClusters) {
		t.Fatal("team limits checked after a missing ProviderConfig")
	}

	// team scope
	const scopeMsg = `spec.providerConfigRef: Forbidden: ProviderConfig "harvester-prod" is scoped to team "%s", but TenantCluster references team "%s"`
	req = acCreate(acAlice, "dev", nil)
	req.ProviderConfig.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam, TeamRef: &v1alpha1.LocalObjectReference{Name: "billing"}}
	acExpect(t, req, fmt.Sprintf(scopeMsg, "billing", "payments"))
	req.ProviderConfig.Spec.Scope.TeamRef.Name = "payments"
	acExpect(t, req, "")
	req.ProviderConfig.Spec.Scope.TeamRef = nil // team scope without a team: not checked
	acExpect(t, req, "")
	req.ProviderConfig.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopePlatform, TeamRef: &v1alpha1.LocalObjectReference{Name: "billing"}}
	acExpect(t, req, "")
	req = acCreate(acAlice, "dev", nil)
	req.Cluster.Spec.TeamRef = nil
	req.ProviderConfig.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam, TeamRef: &v1alpha1.LocalObjectReference{Name: "billing"}}
	acExpect(t, req, fmt.Sprintf(scopeMsg, "billing", ""))
	// also on update
	old := acTC("c1", "dev", acAlice)
	cur := *old.DeepCopy()
	req = acUpdate(old, cur, acAlice, nil)
	req.ProviderConfig.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam, TeamRef: &v1alpha1.LocalObjectReference{Name: "billing"}}
	acExpect(t, req, fmt.Sprintf(scopeMsg, "billing", "payments"))
}

func TestProviderAllowedRestriction(t *testing.T) {
	const msg = `spec.providerConfigRef: Forbidden: provider "harvester" is not allowed for team "payments"; allowed: "nutanix", "proxmox"; this is butler-toolkit's policy, not Butler's (rule provider-allowed)`
	req := acCreate(acAlice, "dev", nil)
	req.Team.Spec.ResourceLimits.AllowedProviders = []string{"nutanix", "proxmox"}
	d := acExpect(t, req, msg)
	if c := acFindCheck(t, d, policy.RuleProviderAllowed); c.Requested != "harvester" || c.Limit != `"nutanix", "proxmox"` {
		t.Fatalf("check: %+v", c)
	}
	req.Team.Spec.ResourceLimits.AllowedProviders = []string{"nutanix", "Harvester"}
	acExpect(t, req, "")
	// placed right after the scope check
	req.Team.Spec.ResourceLimits.AllowedProviders = []string{"nutanix", "proxmox"}
	req.Team.Spec.ResourceLimits.MaxClusters = acI32(0)
	req.ProviderConfig.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam, TeamRef: &v1alpha1.LocalObjectReference{Name: "billing"}}
	acExpect(t, req, `[spec.providerConfigRef: Forbidden: ProviderConfig "harvester-prod" is scoped to team "billing", but TenantCluster references team "payments", `+
		msg+`, `+fmt.Sprintf(acMsgTeamCap, 0, 0)+`]`)
	// updates that keep the ProviderConfig are not blocked by a later restriction
	old := acTC("c1", "dev", acAlice)
	cur := *old.DeepCopy()
	cur.Spec.Workers.Replicas = 3
	req = acUpdate(old, cur, acAlice, nil)
	req.Team.Spec.ResourceLimits.AllowedProviders = []string{"nutanix"}
	acExpect(t, req, "")
	cur.Spec.ProviderConfigRef = &v1alpha1.ProviderReference{Name: "harvester-prod", Namespace: "other"}
	req = acUpdate(old, cur, acAlice, nil)
	req.Team.Spec.ResourceLimits.AllowedProviders = []string{"nutanix"}
	acExpect(t, req, `spec.providerConfigRef: Forbidden: provider "harvester" is not allowed for team "payments"; allowed: "nutanix"; this is butler-toolkit's policy, not Butler's (rule provider-allowed)`)
}

func TestProviderLimits(t *testing.T) {
	pcLimits := func(req policy.ClusterRequest, clusters, nodes *int32) policy.ClusterRequest {
		req.ProviderConfig.Spec.Limits = &v1alpha1.ProviderLimits{MaxClustersPerTeam: clusters, MaxNodesPerTeam: nodes}
		req.Team.Spec.ResourceLimits = nil
		return req
	}
	const clustersMsg = `spec: Forbidden: team namespace "payments" already has %d cluster(s); ProviderConfig "harvester-prod" limits to %d`
	// existing >= max, counting every sibling whatever its provider, env or label
	mixed := acJoin(acFleet("d", "dev", 1, "x@example.com"), acFleet("legacy", "", 1))
	mixed[1].Spec.ProviderConfigRef = &v1alpha1.ProviderReference{Name: "nutanix-pc"}
	acExpect(t, pcLimits(acCreate(acAlice, "dev", mixed), acI32(3), nil), "")
	three := acJoin(mixed, acFleet("p", "prod", 1, "y@example.com"))
	d := acExpect(t, pcLimits(acCreate(acAlice, "dev", three), acI32(3), nil), fmt.Sprintf(clustersMsg, 3, 3))
	if c := acFindCheck(t, d, policy.RuleProviderMaxClusters); c.Usage != "3" || c.After != "4" || c.Limit != "3" {
		t.Fatalf("check: %+v", c)
	}
	// update: not checked
	old := three[0]
	cur := *old.DeepCopy()
	acExpect(t, pcLimits(acUpdate(old, cur, "x@example.com", acJoin(three, three)), acI32(1), acI32(1)), "")

	// nodes: own replicas + the others', total > max
	const nodesMsg = `spec.workers.replicas: Forbidden: total worker replicas (%d) would exceed ProviderConfig "harvester-prod" per-team node limit (%d)`
	four := acFleet("d", "dev", 4, "x@example.com")                           // 8 replicas
	acExpect(t, pcLimits(acCreate(acAlice, "dev", four), nil, acI32(10)), "") // 8 + 2 = 10
	d = acExpect(t, pcLimits(acCreate(acAlice, "dev", four), nil, acI32(9)), fmt.Sprintf(nodesMsg, 10, 9))
	if c := acFindCheck(t, d, policy.RuleProviderMaxNodes); c.Usage != "8" || c.Requested != "2" || c.After != "10" || c.Limit != "9" {
		t.Fatalf("check: %+v", c)
	}
	// the namespace in the message falls back to the team's when the object has none
	req := pcLimits(acCreate(acAlice, "dev", three), acI32(1), nil)
	req.Cluster.Namespace = ""
	if d := policy.AdmitCluster(req); d.Err().Error() != fmt.Sprintf(clustersMsg, 3, 1) {
		got := d.Err().Error()
		t.Fatal(got)
	}
}

// ---------------------------------------------------------------------------------------
// Team resourceLimits.

func TestTeamMaxClusters(t *testing.T) {
	nineteen := acJoin(acFleet("d", "dev", 15, "x@example.com", "y@example.com"), acFleet("legacy", "", 4))
	acExpect(t, acCreate(acAlice, "dev", nineteen), "")
	twenty := acJoin(nineteen, acFleet("p", "prod", 1, "z@example.com"))
	acExpect(t, acCreate(acAlice, "dev", twenty), fmt.Sprintf(acMsgTeamCap, 20, 20))
	// maxClusters 0 blocks every create; unset is no limit
	req := acCreate(acAlice, "dev", nil)
	req.Team.Spec.ResourceLimits.MaxClusters = acI32(0)
	acExpect(t, req, fmt.Sprintf(acMsgTeamCap, 0, 0))
	req.Team.Spec.ResourceLimits.MaxClusters = nil
	req.Siblings = acJoin(twenty, twenty)
	for i := range req.Siblings {
		req.Siblings[i].Name = fmt.Sprintf("s%d", i)
	}
	acExpect(t, req, "")
	// update: not checked
	old := twenty[0]
	cur := *old.DeepCopy()
	cur.Spec.Workers.Replicas = 4
	acExpect(t, acUpdate(old, cur, "x@example.com", acJoin(twenty, acFleet("e", "dev", 5, "y@example.com"))), "")
}

func TestTeamNodeLimits(t *testing.T) {
	const totalMsg = `spec.workers.replicas: Forbidden: total worker nodes (%d) would exceed team "payments" node quota (%d)`
	const perMsg = `spec.workers.replicas: Forbidden: worker replicas (%d) exceeds team "payments" per-cluster node limit (%d)`
	four := acFleet("d", "dev", 4, "x@example.com") // 8 replicas
	req := acCreate(acAlice, "dev", four)
	req.Team.Spec.ResourceLimits.MaxTotalNodes = acI32(10)
	acExpect(t, req, "")
	req.Team.Spec.ResourceLimits.MaxTotalNodes = acI32(9)
	d := acExpect(t, req, fmt.Sprintf(totalMsg, 10, 9))
	if c := acFindCheck(t, d, policy.RuleTeamMaxTotalNodes); c.Usage != "8" || c.Requested != "2" || c.After != "10" {
		t.Fatalf("check: %+v", c)
	}
	req.Team.Spec.ResourceLimits.MaxTotalNodes = acI32(0)
	acExpect(t, req, fmt.Sprintf(totalMsg, 10, 0))

	// per cluster, create
	req = acCreate(acAlice, "dev", nil)
	req.Cluster.Spec.Workers.Replicas = 5
	req.Team.Spec.ResourceLimits.MaxNodesPerCluster = acI32(5)
	acExpect(t, req, "")
	req.Cluster.Spec.Workers.Replicas = 6
	acExpect(t, req, fmt.Sprintf(perMsg, 6, 5))
	req.Team.Spec.ResourceLimits.MaxNodesPerCluster = acI32(0)
	req.Cluster.Spec.Workers.Replicas = 1
	acExpect(t, req, fmt.Sprintf(perMsg, 1, 0))

	// scale (update): within and beyond
	old := acTC("c1", "dev", acCarol)
	sibs := acJoin([]v1alpha1.TenantCluster{old}, acFleet("d", "dev", 9, "x@example.com"))
	scale := func(to int32) policy.ClusterRequest {
		cur := *old.DeepCopy()
		cur.Spec.Workers.Replicas = to
		r := acUpdate(old, cur, acCarol, sibs)
		r.Team.Spec.ResourceLimits.MaxNodesPerCluster = acI32(5)
		r.Team.Spec.ResourceLimits.MaxTotalNodes = acI32(3) // create only: never on scale
		r.Team.Spec.ResourceLimits.MaxClusters = acI32(1)   // create only
		return r
	}
	d = acExpect(t, scale(5), "")
	if c := acFindCheck(t, d, policy.RuleTeamMaxNodesPerCluster); !c.Allowed || c.Usage != "2" || c.Requested != "5" || c.After != "5" || c.Limit != "5" {
		t.Fatalf("check: %+v", c)
	}
	if acHasCheck(d, policy.RuleTeamMaxTotalNodes) || acHasCheck(d, policy.RuleTeamMaxClusters) {
		t.Fatal("create-only gates evaluated on update")
	}
	acExpect(t, scale(6), fmt.Sprintf(perMsg, 6, 5))
	acExpect(t, scale(1), "")
	// an Update without Old is taken as unchanged: the per-cluster cap still applies
	r := scale(6)
	r.Old = nil
	acExpect(t, r, fmt.Sprintf(perMsg, 6, 5))
}

func TestTeamComputeQuotas(t *testing.T) {
	const cpuMsg = `spec.workers: Forbidden: total CPU (%s) would exceed team "payments" CPU quota (%s)`
	const memMsg = `spec.workers: Forbidden: total memory (%s) would exceed team "payments" memory quota (%s)`
	const diskMsg = `spec.workers: Forbidden: total storage (%s) would exceed team "payments" storage quota (%s)`
	// 10 prod clusters of 3 × (4 cpu, 8Gi, 100Gi): 120 cpu, 240Gi, 3000Gi; the new dev one is
	// 2 × (2 cpu, 2Gi, 100Gi): 4 cpu, 4Gi, 200Gi.
	ten := acFleet("p", "prod", 10, "x@example.com")
	team := func(cpu, mem, disk string) policy.ClusterRequest {
		r := acCreate(acAlice, "dev", ten)
		l := r.Team.Spec.ResourceLimits
		if cpu != "" {
			l.MaxCPUCores = acQty(cpu)
		}
		if mem != "" {
			l.MaxMemory = acQty(mem)
		}
		if disk != "" {
			l.MaxStorage = acQty(disk)
		}
		return r
	}
	d := acExpect(t, team("124", "244Gi", "3200Gi"), "") // equal is allowed
	for rule, want := range map[string][4]string{
		policy.RuleTeamMaxCPU:     {"124", "120", "4", "124"},
		policy.RuleTeamMaxMemory:  {"244Gi", "240Gi", "4Gi", "244Gi"},
		policy.RuleTeamMaxStorage: {"3200Gi", "3000Gi", "200Gi", "3200Gi"},
	} {
		c := acFindCheck(t, d, rule)
		if got := [4]string{c.Limit, c.Usage, c.Requested, c.After}; got != want || !c.Allowed || c.Field != "spec.workers" {
			t.Errorf("%s: %+v", rule, c)
		}
	}
	acExpect(t, team("123", "", ""), fmt.Sprintf(cpuMsg, "124", "123"))
	acExpect(t, team("", "243Gi", ""), fmt.Sprintf(memMsg, "244Gi", "243Gi"))
	acExpect(t, team("", "", "3199Gi"), fmt.Sprintf(diskMsg, "3200Gi", "3199Gi"))
	// canonical forms: limits as the server prints them (0.2Ti is not a whole number of bytes,
	// 3e12 keeps its exponent format), sums not divisible into Gi as plain bytes
	acExpect(t, team("123000m", "0.2Ti", "3e12"), "["+fmt.Sprintf(cpuMsg, "124", "123")+", "+
		fmt.Sprintf(memMsg, "244Gi", "219902325555200m")+", "+fmt.Sprintf(diskMsg, "3200Gi", "3e12")+"]")
	r := team("", "1Ti", "")
	r.Cluster.Spec.Workers.MachineTemplate.Memory = resource.MustParse("1.5G")
	r.Cluster.Spec.Workers.Replicas = 600
	acExpect(t, r, fmt.Sprintf(memMsg, "1130564490Ki", "1Ti")) // 240Gi + 600 × 1.5G, in the siblings' BinarySI
	// zero limits are skipped, as on the server
	d = acExpect(t, team("0", "0", "0Gi"), "")
	if acHasCheck(d, policy.RuleTeamMaxCPU) || acHasCheck(d, policy.RuleTeamMaxMemory) || acHasCheck(d, policy.RuleTeamMaxStorage) {
		t.Fatal("zero compute limits evaluated")
	}
	// clusters being deleted count
	r = team("123", "", "")
	r.Siblings = acJoin(ten[1:], acFleet("gone", "prod", 1, "x@example.com"))
	now := metav1.Now()
	r.Siblings[9].DeletionTimestamp = &now
	acExpect(t, r, fmt.Sprintf(cpuMsg, "124", "123"))

	// scale: the server checks these quotas on create only, so a scale up beyond the quota
	// is allowed with a warning naming the figures, within it allowed; scaling down or
	// leaving the size alone is not evaluated
	old := ten[0]
	scale := func(to int32, cpu string) policy.ClusterRequest {
		cur := *old.DeepCopy()
		cur.Spec.Workers.Replicas = to
		r := acUpdate(old, cur, "x@example.com", ten)
		r.Team.Spec.ResourceLimits.MaxCPUCores = acQty(cpu)
		return r
	}
	d = acExpect(t, scale(4, "124"), "") // 108 + 16 = 124
	if c := acFindCheck(t, d, policy.RuleTeamMaxCPU); c.Usage != "120" || c.Requested != "16" || c.After != "124" {
		t.Fatalf("scale check: %+v", c)
	}
	d = acExpect(t, scale(5, "124"), "")
	if c := acFindCheck(t, d, policy.RuleTeamMaxCPU); !c.Allowed || c.After != "128" ||
		c.Warning != `total CPU (128) will exceed team "payments" CPU quota (124); the server checks it on create only and admits this update` {
		t.Fatalf("scale past the quota: %+v", c)
	}
	if w := d.Warnings(); len(w) != 1 {
		t.Fatalf("warnings: %q", w)
	}
	d = acExpect(t, scale(2, "100"), "")
	if acHasCheck(d, policy.RuleTeamMaxCPU) {
		t.Fatal("scale down evaluated against the CPU quota")
	}
	acExpect(t, scale(3, "100"), "")
	// a bigger machine is a growth too
	cur := *old.DeepCopy()
	cur.Spec.Workers.MachineTemplate.Memory = resource.MustParse("16Gi")
	r = acUpdate(old, cur, "x@example.com", ten)
	r.Team.Spec.ResourceLimits.MaxMemory = acQty("250Gi")
	d = acExpect(t, r, "")
	if c := acFindCheck(t, d, policy.RuleTeamMaxMemory); c.Warning == "" || c.After != "264Gi" {
		t.Fatalf("bigger machine past the quota: %+v", c)
	}
}

// ---------------------------------------------------------------------------------------
// Client-side feature restrictions.

func TestVersionRestriction(t *testing.T) {
	const msg = `spec.kubernetesVersion: Unsupported value: "%s": supported values: "1.29.x", "1.30.4"; this is butler-toolkit's policy, not Butler's (rule team-allowed-versions)`
	req := acCreate(acAlice, "dev", nil)
	req.Team.Spec.ResourceLimits.AllowedKubernetesVersions = []string{"1.29.x", "1.30.4"}
	d := acExpect(t, req, fmt.Sprintf(msg, "v1.31.0"))
	if c := acFindCheck(t, d, policy.RuleTeamAllowedVersions); c.Requested != "v1.31.0" || c.Limit != `"1.29.x", "1.30.4"` {
		t.Fatalf("check: %+v", c)
	}
	for v, want := range map[string]string{"v1.29.0": "", "v1.29.11": "", "v1.30.4": "", "v1.30.5": fmt.Sprintf(msg, "v1.30.5"), "v1.28.9": fmt.Sprintf(msg, "v1.28.9")} {
		req.Cluster.Spec.KubernetesVersion = v
		acExpect(t, req, want)
	}
	if !d.Checks[len(d.Checks)-1].ClientSide {
		t.Fatal("the version restriction is not marked client-side")
	}
	// a missing ProviderConfig ends the evaluation, as on the server
	req.Cluster.Spec.KubernetesVersion = "v1.31.0"
	req.ProviderConfig = nil
	acExpect(t, req, `spec.providerConfigRef.name: Not found: "harvester-prod"`)
	// update: only when the version changes
	old := acTC("c1", "dev", acAlice)
	cur := *old.DeepCopy()
	cur.Spec.Workers.Replicas = 3
	r := acUpdate(old, cur, acAlice, nil)
	r.Team.Spec.ResourceLimits.AllowedKubernetesVersions = []string{"1.29.x", "1.30.4"}
	acExpect(t, r, "")
	cur.Spec.KubernetesVersion = "v1.32.0"
	r = acUpdate(old, cur, acAlice, nil)
	r.Team.Spec.ResourceLimits.AllowedKubernetesVersions = []string{"1.29.x", "1.30.4"}
	acExpect(t, r, fmt.Sprintf(msg, "v1.32.0"))
}

func TestAddonRestriction(t *testing.T) {
	const msg = `spec.addons: Forbidden: addon "%s" is not allowed for team "payments"; this is butler-toolkit's policy, not Butler's (rule team-addons)`
	req := acCreate(acAlice, "dev", nil)
	req.Team.Spec.ResourceLimits.AllowedAddons = []string{"cilium", "istio", "cert-manager"}
	req.Team.Spec.ResourceLimits.DeniedAddons = []string{"istio"}
	req.Addons = []string{"cilium", "istio", "longhorn@1.6.0", "cert-manager@v1.14", "istio"}
	d := acExpect(t, req, "["+fmt.Sprintf(msg, "istio")+", "+fmt.Sprintf(msg, "longhorn")+"]")
	n := 0
	for _, c := range d.Checks {
		if c.Rule == policy.RuleTeamAddons {
			n++
		}
	}
	if n != 4 {
		t.Fatalf("addon checks: %d (%+v)", n, d.Checks)
	}
	req.Addons = []string{"cilium"}
	acExpect(t, req, "")
	// no restriction: no checks
	req.Team.Spec.ResourceLimits.AllowedAddons, req.Team.Spec.ResourceLimits.DeniedAddons = nil, nil
	req.Addons = []string{"anything"}
	if d := acExpect(t, req, ""); acHasCheck(d, policy.RuleTeamAddons) {
		t.Fatal("addon check without restrictions")
	}
	// no team: no restrictions
	req.Team = nil
	acExpect(t, req, "")
}

// ---------------------------------------------------------------------------------------
// Aggregation, ordering and edge cases.

func TestAggregateOrder(t *testing.T) {
	// everything at once, in evaluation order
	team := acPayments()
	l := team.Spec.ResourceLimits
	l.MaxClusters = acI32(1)
	l.MaxTotalNodes = acI32(3)
	l.MaxNodesPerCluster = acI32(1)
	l.MaxCPUCores, l.MaxMemory, l.MaxStorage = acQty("4"), acQty("4Gi"), acQty("100Gi")
	l.AllowedKubernetesVersions = []string{"1.30.x"}
	l.AllowedProviders = []string{"proxmox"}
	l.DeniedAddons = []string{"istio"}
	pc := acPC()
	pc.Spec.Limits = &v1alpha1.ProviderLimits{MaxClustersPerTeam: acI32(1), MaxNodesPerTeam: acI32(2)}
	c := acTC("new", "prod", acCarol)
	req := policy.ClusterRequest{
		Operation: policy.Create, Cluster: &c, Team: team, ProviderConfig: pc, Username: acCarol,
		Siblings: acFleet("p", "prod", 6, acCarol), Addons: []string{"istio"},
	}
	want := []string{
		fmt.Sprintf(acMsgEnvCap, "prod", 6, 6),
		fmt.Sprintf(acMsgOwns, acCarol, 6, "prod", 1),
		`spec.providerConfigRef: Forbidden: provider "harvester" is not allowed for team "payments"; allowed: "proxmox"; this is butler-toolkit's policy, not Butler's (rule provider-allowed)`,
		`spec: Forbidden: team namespace "payments" already has 6 cluster(s); ProviderConfig "harvester-prod" limits to 1`,
		`spec.workers.replicas: Forbidden: total worker replicas (21) would exceed ProviderConfig "harvester-prod" per-team node limit (2)`,
		fmt.Sprintf(acMsgTeamCap, 6, 1),
		`spec.workers.replicas: Forbidden: total worker nodes (21) would exceed team "payments" node quota (3)`,
		`spec.workers.replicas: Forbidden: worker replicas (3) exceeds team "payments" per-cluster node limit (1)`,
		`spec.workers: Forbidden: total CPU (84) would exceed team "payments" CPU quota (4)`,
		`spec.workers: Forbidden: total memory (168Gi) would exceed team "payments" memory quota (4Gi)`,
		`spec.workers: Forbidden: total storage (2100Gi) would exceed team "payments" storage quota (100Gi)`,
		`spec.kubernetesVersion: Unsupported value: "v1.31.0": supported values: "1.30.x"; this is butler-toolkit's policy, not Butler's (rule team-allowed-versions)`,
		`spec.addons: Forbidden: addon "istio" is not allowed for team "payments"; this is butler-toolkit's policy, not Butler's (rule team-addons)`,
	}
	d := acExpect(t, req, "["+strings.Join(want, ", ")+"]")
	if len(d.Violations) != len(want) || d.Violations[0].Rule != policy.RuleEnvMaxClusters || d.Violations[len(want)-1].Rule != policy.RuleTeamAddons {
		t.Fatalf("violations: %+v", d.Violations)
	}
	if len(d.ErrorList()) != len(want) {
		t.Fatal("ErrorList")
	}
}

func TestAdmitClusterEdgeCases(t *testing.T) {
	// Delete and unknown operations are allowed unchecked, as on the server
	for _, op := range []policy.Operation{policy.Delete, "CONNECT"} {
		req := acCreate(acCarol, "", nil)
		req.Operation = op
		if d := policy.AdmitCluster(req); !d.Allowed() || len(d.Checks) != 0 {
			t.Fatalf("%s: %+v", op, d)
		}
	}
	// "" is Create
	req := acCreate(acCarol, "", nil)
	req.Operation = ""
	acExpect(t, req, acMsgLabelReq)
	// nothing at all
	if d := policy.AdmitCluster(policy.ClusterRequest{}); !d.Allowed() {
		t.Fatal(d.Err())
	}
	if d := policy.AdmitCluster(policy.ClusterRequest{Operation: policy.Update}); !d.Allowed() {
		t.Fatal(d.Err())
	}
	// a team without a name uses the teamRef's in messages
	req = acCreate(acCarol, "", nil)
	req.Team.Name = ""
	if d := policy.AdmitCluster(req); d.Err().Error() != acMsgLabelReq {
		got := d.Err().Error()
		t.Fatal(got)
	}
	// the decision never aliases or mutates the inputs
	sibs := acFleet("d", "dev", 3, acCarol)
	sibs[0].Spec.Workers.MachineTemplate.Memory = resource.MustParse("1.5Gi")
	req = acCreate(acCarol, "dev", sibs)
	req.Team.Spec.ResourceLimits.MaxMemory = acQty("0.5Ti")
	policy.AdmitCluster(req)
	if s := sibs[0].Spec.Workers.MachineTemplate.Memory.String(); s != "1536Mi" {
		t.Fatal(s)
	}
}
