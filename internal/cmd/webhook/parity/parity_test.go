package parity_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// parityCase is one request, made twice: through the CLI's preflight (the policy library
// fed what the CLI reads as that user, through the live store) and through the API server
// with client-go (dry run, so state never changes), which calls the webhook.
type parityCase struct {
	name string
	prep string // the fixture the request runs against (preps below)
	user string
	// groups the user is impersonated with, for RBAC the harness users lack (writing the
	// payments Team, creating Teams); empty: the user's own credentials.
	groups []string
	op     policy.Operation
	obj    client.Object                     // create: the object; update and delete: its kind, name and namespace
	mutate func(client.Object) client.Object // update: the change, applied to a fresh copy
	want   string                            // the contract's message; "" allowed
}

// preps are the fixtures, each applied as the admin (webhook dormant) on top of
// examples/payments. Every case of one prep runs against the same state.
var preps = map[string]func(ctx context.Context, t *testing.T, c client.Client) error{
	"payments": nil,
	// The worked example's scenarios 4 and 5 bring their clusters: six in prod; twenty in
	// the team (the example team's maxClusters).
	"scenario4": func(ctx context.Context, t *testing.T, c client.Client) error {
		return createFromTxtar(ctx, t, c, "ctl_scenario4_env_cap.txtar")
	},
	"scenario5": func(ctx context.Context, t *testing.T, c client.Client) error {
		return createFromTxtar(ctx, t, c, "ctl_scenario5_team_ceiling.txtar")
	},
	"team-max-clusters": teamLimits(func(l *v1alpha1.TeamResourceLimits) { l.MaxClusters = i32(4) }),
	"team-max-total-nodes": teamLimits(func(l *v1alpha1.TeamResourceLimits) {
		l.MaxTotalNodes = i32(10)
	}),
	"team-max-nodes-per-cluster": teamLimits(func(l *v1alpha1.TeamResourceLimits) { l.MaxNodesPerCluster = i32(2) }),
	"team-compute": teamLimits(func(l *v1alpha1.TeamResourceLimits) {
		l.MaxCPUCores, l.MaxMemory, l.MaxStorage = qty("27"), qty("43Gi"), qty("1Ti")
	}),
	"team-restrictions": func(ctx context.Context, t *testing.T, c client.Client) error {
		return patchTeam(ctx, c, func(tm *v1alpha1.Team) {
			tm.Spec.ResourceLimits.AllowedKubernetesVersions = []string{"1.30.x"}
			tm.Spec.ResourceLimits.AllowedProviders = []string{"nutanix", "proxmox"}
			tm.Spec.ResourceLimits.DeniedAddons = []string{"cilium"}
			tm.Spec.Environments[0].ClusterDefaults.DefaultAddons = []string{"cert-manager", "cilium"}
		})
	},
	// ClusterCreationPolicies at every tier, and a cluster that predates the team's list.
	"policies": func(ctx context.Context, t *testing.T, c client.Client) error {
		old := withImage(cluster("old-image", "dev", testenv.Carol, 1, 2, "2Gi"), "rocky-9")
		for _, o := range append(parityPolicies(), old) {
			if err := c.Create(ctx, o); err != nil {
				return err
			}
		}
		return nil
	},
	"provider-limits": func(ctx context.Context, t *testing.T, c client.Client) error {
		pc := &v1alpha1.ProviderConfig{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "butler-system", Name: "harvester-prod"}, pc); err != nil {
			return err
		}
		pc.Spec.Limits = &v1alpha1.ProviderLimits{MaxClustersPerTeam: i32(4), MaxNodesPerTeam: i32(10)}
		if err := c.Update(ctx, pc); err != nil {
			return err
		}
		scoped := providerConfig("ledger-only", func(pc *v1alpha1.ProviderConfig) {
			pc.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam, TeamRef: &v1alpha1.LocalObjectReference{Name: "ledger"}}
		})
		spare := providerConfig("spare", nil)
		if err := c.Create(ctx, scoped); err != nil {
			return err
		}
		return c.Create(ctx, spare)
	},
}

func TestParityPreflightAndServer(t *testing.T) {
	env := testenv.Start(t, testenv.WithWebhook())
	grantTeamWriters(t, env)

	dev := func(name, creator string) *v1alpha1.TenantCluster { return cluster(name, "dev", creator, 2, 2, "2Gi") }
	prod := func(name, creator string) *v1alpha1.TenantCluster { return cluster(name, "prod", creator, 3, 4, "8Gi") }
	setLabel := func(v string) func(client.Object) client.Object {
		return func(o client.Object) client.Object {
			labels := o.GetLabels()
			if v == "" {
				delete(labels, v1alpha1.LabelEnvironment)
			} else {
				labels[v1alpha1.LabelEnvironment] = v
			}
			o.SetLabels(labels)
			return o
		}
	}
	scale := func(n int32) func(client.Object) client.Object {
		return func(o client.Object) client.Object { o.(*v1alpha1.TenantCluster).Spec.Workers.Replicas = n; return o }
	}
	editTeam := func(f func(*v1alpha1.Team)) func(client.Object) client.Object {
		return func(o client.Object) client.Object { f(o.(*v1alpha1.Team)); return o }
	}
	tcKey := func(name string) client.Object {
		return &v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "payments"}}
	}
	teamKey := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "payments"}}
	editors := []string{"parity:payments-editors"}
	creators := []string{"parity:team-creators"}
	const (
		alice = testenv.Alice
		bob   = testenv.Bob
		carol = testenv.Carol
		olive = testenv.Olivia
	)
	envLabelMsg := "metadata.labels[butler.butlerlabs.dev/environment]: Forbidden: env label changes require the \"butler.butlerlabs.dev/migration-operation\" annotation set to \"true\"; use `butleradm env migrate`"

	cases := []parityCase{
		// The worked example (S000; testdata/script/ctl_scenario*.txtar).
		{name: "scenario 1: carol's third dev cluster", prep: "payments", user: carol, op: policy.Create, obj: dev("sandbox-3", carol),
			want: `metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: user "carol@example.com" already owns 2 cluster(s) in environment "dev"; env limits to 2 per member`},
		{name: "scenario 2: carol's first prod cluster", prep: "payments", user: carol, op: policy.Create, obj: prod("checkout-2", carol)},
		{name: "scenario 3: bob's second prod cluster", prep: "payments", user: bob, op: policy.Create, obj: prod("checkout-2", bob),
			want: `metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: user "bob@example.com" already owns 1 cluster(s) in environment "prod"; env limits to 1 per member`},
		{name: "scenario 4: the seventh prod cluster", prep: "scenario4", user: alice, op: policy.Create, obj: prod("prod-7", alice),
			want: `spec: Forbidden: environment "prod" in team "payments" already has 6 cluster(s); env quota limits to 6`},
		{name: "scenario 4: binds platform admins too", prep: "scenario4", user: olive, op: policy.Create, obj: prod("prod-7", olive),
			want: `spec: Forbidden: environment "prod" in team "payments" already has 6 cluster(s); env quota limits to 6`},
		{name: "scenario 5: team ceiling in dev", prep: "scenario5", user: alice, op: policy.Create, obj: dev("one-more", alice),
			want: `spec: Forbidden: team "payments" already has 20 cluster(s); team quota limits to 20`},
		{name: "scenario 5: team ceiling in prod", prep: "scenario5", user: alice, op: policy.Create, obj: prod("one-more", alice),
			want: `spec: Forbidden: team "payments" already has 20 cluster(s); team quota limits to 20`},

		// §4, environment rules.
		{name: "env label changed without the annotation", prep: "payments", user: carol, op: policy.Update, obj: tcKey("carol-sandbox-1"), mutate: setLabel("prod"), want: envLabelMsg},
		{name: "env label removed without the annotation", prep: "payments", user: carol, op: policy.Update, obj: tcKey("carol-sandbox-1"), mutate: setLabel(""), want: envLabelMsg},
		{name: "env label added to the legacy cluster", prep: "payments", user: alice, op: policy.Update, obj: tcKey("ledger-legacy"), mutate: setLabel("prod"), want: envLabelMsg},
		{name: "env label changed with the annotation", prep: "payments", user: carol, op: policy.Update, obj: tcKey("carol-sandbox-1"), mutate: func(o client.Object) client.Object {
			o = setLabel("prod")(o)
			a := o.GetAnnotations()
			a[v1alpha1.AnnotationMigration] = "true"
			o.SetAnnotations(a)
			return o
		}},
		{name: "legacy unlabeled cluster scaled", prep: "payments", user: alice, op: policy.Update, obj: tcKey("ledger-legacy"), mutate: scale(3)},
		{name: "env label missing on create", prep: "payments", user: bob, op: policy.Create, obj: cluster("plain", "", bob, 1, 2, "2Gi"),
			want: `metadata.labels[butler.butlerlabs.dev/environment]: Required value: team "payments" defines environments; TenantClusters must carry this label set to one of the team's env names`},
		{name: "env label naming no environment", prep: "payments", user: bob, op: policy.Create, obj: cluster("st", "staging", bob, 1, 2, "2Gi"),
			want: `metadata.labels[butler.butlerlabs.dev/environment]: Unsupported value: "staging": supported values: "dev", "prod"`},
		{name: "creator-email missing under a per-member cap", prep: "payments", user: bob, op: policy.Create, obj: dev("anon", ""),
			want: `metadata.annotations[butler.butlerlabs.dev/creator-email]: Required value: environment "dev" sets maxClustersPerMember; TenantClusters must carry the butler.butlerlabs.dev/creator-email annotation (set automatically by butler-server; kubectl-direct creates must supply it explicitly)`},
		{name: "creator-email naming someone else", prep: "payments", user: bob, op: policy.Create, obj: dev("bobs", carol),
			want: `metadata.annotations[butler.butlerlabs.dev/creator-email]: Invalid value: "carol@example.com": butler.butlerlabs.dev/creator-email must match the requesting identity "bob@example.com"; environment "dev" enforces per-member caps and cannot accept an annotation claiming a different user`},
		{name: "creator-email changed on update", prep: "payments", user: carol, op: policy.Update, obj: tcKey("carol-sandbox-1"), mutate: func(o client.Object) client.Object {
			a := o.GetAnnotations()
			a[v1alpha1.AnnotationCreatorEmail] = bob
			o.SetAnnotations(a)
			return o
		}, want: `metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: butler.butlerlabs.dev/creator-email is immutable; cannot change from "carol@example.com" to "bob@example.com"`},

		// §4, provider rules.
		{name: "ProviderConfig not found", prep: "payments", user: bob, op: policy.Create, obj: withProvider(dev("x", bob), "gone"),
			want: `spec.providerConfigRef.name: Not found: "gone"`},
		{name: "ProviderConfig scoped to another team", prep: "provider-limits", user: carol, op: policy.Create, obj: withProvider(prod("x", carol), "ledger-only"),
			want: `spec.providerConfigRef: Forbidden: ProviderConfig "ledger-only" is scoped to team "ledger", but TenantCluster references team "payments"`},
		{name: "ProviderConfig cluster limit, with the member cap", prep: "provider-limits", user: carol, op: policy.Create, obj: dev("sandbox-3", carol),
			want: `[metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: user "carol@example.com" already owns 2 cluster(s) in environment "dev"; env limits to 2 per member, spec: Forbidden: team namespace "payments" already has 4 cluster(s); ProviderConfig "harvester-prod" limits to 4, spec.workers.replicas: Forbidden: total worker replicas (11) would exceed ProviderConfig "harvester-prod" per-team node limit (10)]`},
		{name: "ProviderConfig limits", prep: "provider-limits", user: carol, op: policy.Create, obj: cluster("one", "prod", carol, 1, 2, "2Gi"),
			want: `spec: Forbidden: team namespace "payments" already has 4 cluster(s); ProviderConfig "harvester-prod" limits to 4`},
		{name: "team allowedProviders", prep: "team-restrictions", user: carol, op: policy.Create, obj: cluster("p", "prod", carol, 1, 2, "2Gi", "v1.30.2"),
			want: `spec.providerConfigRef: Forbidden: provider "harvester" is not allowed for team "payments"; allowed: "nutanix", "proxmox"; this is butler-toolkit's policy, not Butler's (rule provider-allowed)`},

		// §4, team limits and restrictions.
		{name: "team maxClusters", prep: "team-max-clusters", user: alice, op: policy.Create, obj: dev("a", alice),
			want: `spec: Forbidden: team "payments" already has 4 cluster(s); team quota limits to 4`},
		{name: "team maxTotalNodes", prep: "team-max-total-nodes", user: alice, op: policy.Create, obj: dev("a", alice),
			want: `spec.workers.replicas: Forbidden: total worker nodes (11) would exceed team "payments" node quota (10)`},
		{name: "team maxNodesPerCluster on create", prep: "team-max-nodes-per-cluster", user: carol, op: policy.Create, obj: prod("c", carol),
			want: `spec.workers.replicas: Forbidden: worker replicas (3) exceeds team "payments" per-cluster node limit (2)`},
		{name: "team maxNodesPerCluster on scale", prep: "team-max-nodes-per-cluster", user: carol, op: policy.Update, obj: tcKey("carol-sandbox-1"), mutate: scale(3),
			want: `spec.workers.replicas: Forbidden: worker replicas (3) exceeds team "payments" per-cluster node limit (2)`},
		{name: "team CPU, memory and storage", prep: "team-compute", user: alice, op: policy.Create, obj: dev("a", alice),
			want: `[spec.workers: Forbidden: total CPU (28) would exceed team "payments" CPU quota (27), spec.workers: Forbidden: total memory (44Gi) would exceed team "payments" memory quota (43Gi), spec.workers: Forbidden: total storage (1100Gi) would exceed team "payments" storage quota (1Ti)]`},
		// The server checks CPU, memory and storage on create only: a scale up past them is
		// admitted (the CLI warns).
		{name: "team CPU, memory and storage on a scale up", prep: "team-compute", user: carol, op: policy.Update, obj: tcKey("carol-sandbox-1"), mutate: scale(4)},
		{name: "team compute quotas do not block a scale up within them", prep: "team-compute", user: carol, op: policy.Update, obj: tcKey("carol-sandbox-1"), mutate: scale(3)},
		{name: "team allowedKubernetesVersions and denied default addon", prep: "team-restrictions", user: alice, op: policy.Create, obj: withProvider(dev("a", alice), ""),
			want: `[spec.kubernetesVersion: Unsupported value: "v1.31.0": supported values: "1.30.x"; this is butler-toolkit's policy, not Butler's (rule team-allowed-versions), spec.addons: Forbidden: addon "cilium" is not allowed for team "payments"; this is butler-toolkit's policy, not Butler's (rule team-addons)]`},

		// ClusterCreationPolicies applied to TenantClusters.
		{name: "team allow-list replaces the platform's", prep: "policies", user: bob, op: policy.Create, obj: withImage(dev("img", bob), "ubuntu-22"),
			want: `spec.infrastructureOverride.harvester.imageName: Forbidden: ClusterCreationPolicy "payments-images" allow-lists image to [ubuntu-24]; got "ubuntu-22"`},
		{name: "platform allow-list for another team", prep: "policies", user: olive, op: policy.Create, obj: withImage(ledger("img"), "debian-12"),
			want: `spec.infrastructureOverride.harvester.imageName: Forbidden: ClusterCreationPolicy "platform-images" allow-lists image to [ubuntu-22 ubuntu-24]; got "debian-12"`},
		{name: "environment pin", prep: "policies", user: carol, op: policy.Create, obj: withNetwork(prod("net", carol), "default/vlan-100"),
			want: `spec.infrastructureOverride.harvester.networkName: Forbidden: ClusterCreationPolicy "payments-prod-network" pins network to [default/vlan-200]; got "default/vlan-100"`},
		{name: "two policy violations", prep: "policies", user: carol, op: policy.Create, obj: withNetwork(withImage(prod("two", carol), "ubuntu-22"), "default/vlan-100"),
			want: `[spec.infrastructureOverride.harvester.imageName: Forbidden: ClusterCreationPolicy "payments-images" allow-lists image to [ubuntu-24]; got "ubuntu-22", spec.infrastructureOverride.harvester.networkName: Forbidden: ClusterCreationPolicy "payments-prod-network" pins network to [default/vlan-200]; got "default/vlan-100"]`},
		{name: "allowed values", prep: "policies", user: carol, op: policy.Create, obj: withNetwork(withImage(prod("ok", carol), "ubuntu-24"), "default/vlan-200")},
		{name: "empty values pass", prep: "policies", user: carol, op: policy.Create, obj: prod("plain", carol)},
		{name: "existing cluster refused on scale after a new allow-list", prep: "policies", user: carol, op: policy.Update, obj: tcKey("old-image"), mutate: scale(2),
			want: `spec.infrastructureOverride.harvester.imageName: Forbidden: ClusterCreationPolicy "payments-images" allow-lists image to [ubuntu-24]; got "rocky-9"`},

		// ClusterCreationPolicies' own admission.
		{name: "policy: team not found", prep: "policies", user: olive, op: policy.Create, obj: ccp("x", teamScope("ledger"), nil),
			want: `spec.scope.team.teamRef.name: Not found: "ledger"`},
		{name: "policy: environment's team not found", prep: "policies", user: olive, op: policy.Create, obj: ccp("x", envScope("ledger", "qa"), nil),
			want: `spec.scope.teamAndEnvironment.teamRef.name: Not found: "ledger"`},
		{name: "policy: environment not found", prep: "policies", user: olive, op: policy.Create, obj: ccp("x", envScope("payments", "qa"), nil),
			want: `spec.scope.teamAndEnvironment.environmentName: Not found: "qa"`},
		{name: "policy: option keys and mode rules", prep: "policies", user: olive, op: policy.Create, obj: ccp("x", envScope("payments", "dev"), map[string]v1alpha1.OptionRule{
			"image": {Mode: "pin", Values: []string{"a", "b"}}, "network": {Mode: "allowList"}, "cluster": {Mode: "recommended"},
			"storageContainer": {Mode: "default"}, "flavor": {Mode: "pin", Values: []string{"m"}}}),
			want: `[spec.options[image].values: Invalid value: ["a","b"]: mode "pin" requires exactly one value, got 2, ` +
				`spec.options[network].values: Required value: at least one value is required when mode is "allowList", ` +
				`spec.options[cluster].values: Required value: at least one value is required when mode is "recommended", ` +
				`spec.options[storageContainer].default: Required value: default value is required when mode is "default", ` +
				`spec.options[flavor]: Unsupported value: "flavor": supported values: "image", "network", "cluster", "storageContainer"]`},
		{name: "policy: pin without values", prep: "policies", user: olive, op: policy.Create, obj: ccp("x", envScope("payments", "dev"), map[string]v1alpha1.OptionRule{"image": {Mode: "pin"}}),
			want: `spec.options[image].values: Invalid value: null: mode "pin" requires exactly one value, got 0`},
		{name: "policy: same-tier conflict", prep: "policies", user: olive, op: policy.Create, obj: ccp("x", teamScope("payments"), map[string]v1alpha1.OptionRule{
			"image": {Mode: "default", Default: "ubuntu-24"}, "network": {Mode: "allowList", Values: []string{"n"}}}),
			want: `spec.options: Forbidden: conflicts with ClusterCreationPolicy "payments-images" on option types [image] at the same tier`},
		{name: "policy: valid", prep: "policies", user: olive, op: policy.Create, obj: ccp("x", envScope("payments", "dev"), map[string]v1alpha1.OptionRule{
			"image": {Mode: "recommended", Values: []string{"ubuntu-24"}, RecommendedReason: "LTS"}})},

		// §5, Team writes.
		{name: "new team with resourceLimits", prep: "payments", user: carol, groups: creators, op: policy.Create, obj: newTeam("ledger", func(tm *v1alpha1.Team) {
			tm.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxClusters: i32(5)}
		}), want: `spec.resourceLimits may only be set by platform admins; user "carol@example.com" is not a platform admin`},
		{name: "new team with environment limits", prep: "payments", user: carol, groups: creators, op: policy.Create, obj: newTeam("risk", func(tm *v1alpha1.Team) {
			tm.Spec.Environments = []v1alpha1.EnvironmentSpec{{Name: "dev"}, {Name: "prod", Limits: &v1alpha1.EnvironmentLimits{MaxClusters: i32(2)}}}
		}), want: `spec.environments[1].limits on a new team may only be set by platform admins; user "carol@example.com" is not a platform admin`},
		{name: "new team without limits", prep: "payments", user: carol, groups: creators, op: policy.Create, obj: newTeam("risk", nil)},
		{name: "new team with limits by a platform admin", prep: "payments", user: olive, op: policy.Create, obj: newTeam("ledger", func(tm *v1alpha1.Team) {
			tm.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxClusters: i32(5)}
		})},
		{name: "team admin changing resourceLimits", prep: "payments", user: alice, groups: editors, op: policy.Update, obj: teamKey, mutate: editTeam(func(tm *v1alpha1.Team) {
			tm.Spec.ResourceLimits.MaxClusters = i32(30)
		}), want: `spec.resourceLimits may only be modified by platform admins; user "alice@example.com" is not a platform admin`},
		{name: "team admin clearing resourceLimits", prep: "payments", user: alice, groups: editors, op: policy.Update, obj: teamKey, mutate: editTeam(func(tm *v1alpha1.Team) {
			tm.Spec.ResourceLimits = nil
		}), want: `spec.resourceLimits may only be modified by platform admins; user "alice@example.com" is not a platform admin`},
		{name: "platform admin changing resourceLimits", prep: "payments", user: olive, op: policy.Update, obj: teamKey, mutate: editTeam(func(tm *v1alpha1.Team) {
			tm.Spec.ResourceLimits.MaxClusters = i32(30)
		})},
		{name: "operator changing environment limits", prep: "payments", user: bob, groups: editors, op: policy.Update, obj: teamKey, mutate: editTeam(func(tm *v1alpha1.Team) {
			tm.Spec.Environments[0].Limits.MaxClustersPerMember = i32(3)
		}), want: `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`},
		{name: "operator adding an environment with limits", prep: "payments", user: bob, groups: editors, op: policy.Update, obj: teamKey, mutate: editTeam(func(tm *v1alpha1.Team) {
			tm.Spec.Environments = append(tm.Spec.Environments, v1alpha1.EnvironmentSpec{Name: "qa", Limits: &v1alpha1.EnvironmentLimits{MaxClusters: i32(1)}})
		}), want: `spec.environments[].limits may only be modified by team admins of "payments" or platform admins; user "bob@example.com" is neither`},
		{name: "operator adding an environment without limits", prep: "payments", user: bob, groups: editors, op: policy.Update, obj: teamKey, mutate: editTeam(func(tm *v1alpha1.Team) {
			tm.Spec.Environments = append(tm.Spec.Environments, v1alpha1.EnvironmentSpec{Name: "qa"})
		})},
		{name: "team admin changing environment limits", prep: "payments", user: alice, groups: editors, op: policy.Update, obj: teamKey, mutate: editTeam(func(tm *v1alpha1.Team) {
			tm.Spec.Environments[0].Limits.MaxClustersPerMember = i32(3)
		})},
		{name: "environment access naming a stranger", prep: "payments", user: alice, groups: editors, op: policy.Update, obj: teamKey, mutate: editTeam(func(tm *v1alpha1.Team) {
			a := tm.Spec.Environments[1].Access
			a.Users = append(a.Users, v1alpha1.TeamUser{Name: "mallory@example.com", Role: v1alpha1.RoleAdmin})
		}), want: `spec.environments[1].access.users["mallory@example.com"] is not a team member; env access is additive only and cannot introduce subjects absent from spec.access.users`},
		{name: "environment access naming a strange group", prep: "payments", user: alice, groups: editors, op: policy.Update, obj: teamKey, mutate: editTeam(func(tm *v1alpha1.Team) {
			tm.Spec.Environments[0].Access = &v1alpha1.TeamAccess{Groups: []v1alpha1.TeamGroup{{Name: "contractors", Role: v1alpha1.RoleOperator}}}
		}), want: `spec.environments[0].access.groups["contractors"] is not a team group; env access is additive only and cannot introduce groups absent from spec.access.groups`},
		{name: "environment access naming a stranger, even for a platform admin", prep: "payments", user: olive, op: policy.Update, obj: teamKey, mutate: editTeam(func(tm *v1alpha1.Team) {
			a := tm.Spec.Environments[1].Access
			a.Users = append(a.Users, v1alpha1.TeamUser{Name: "Mallory@Example.com", Role: v1alpha1.RoleViewer})
		}), want: `spec.environments[1].access.users["Mallory@Example.com"] is not a team member; env access is additive only and cannot introduce subjects absent from spec.access.users`},

		// §6, ProviderConfigs.
		{name: "provider section missing", prep: "payments", user: olive, op: policy.Create, obj: providerConfig("aws", func(pc *v1alpha1.ProviderConfig) { pc.Spec.Provider, pc.Spec.Harvester = "aws", nil }),
			want: `spec.aws: Required value: aws configuration is required when provider is "aws"`},
		{name: "aws region empty", prep: "payments", user: olive, op: policy.Create, obj: providerConfig("aws", func(pc *v1alpha1.ProviderConfig) {
			pc.Spec.Provider, pc.Spec.Harvester, pc.Spec.AWS = "aws", nil, &v1alpha1.AWSConfig{}
		}), want: `spec.aws.region: Required value: region is required for AWS provider`},
		{name: "azure fields empty", prep: "payments", user: olive, op: policy.Create, obj: providerConfig("az", func(pc *v1alpha1.ProviderConfig) {
			pc.Spec.Provider, pc.Spec.Harvester, pc.Spec.Azure = "azure", nil, &v1alpha1.AzureConfig{}
		}), want: `[spec.azure.subscriptionID: Required value: subscriptionID is required for Azure provider, spec.azure.resourceGroup: Required value: resourceGroup is required for Azure provider]`},
		{name: "gcp fields empty", prep: "payments", user: olive, op: policy.Create, obj: providerConfig("gcp", func(pc *v1alpha1.ProviderConfig) {
			pc.Spec.Provider, pc.Spec.Harvester, pc.Spec.GCP = "gcp", nil, &v1alpha1.GCPConfig{}
		}), want: `[spec.gcp.projectID: Required value: projectID is required for GCP provider, spec.gcp.region: Required value: region is required for GCP provider]`},
		{name: "team scope without teamRef", prep: "payments", user: olive, op: policy.Create, obj: providerConfig("t", func(pc *v1alpha1.ProviderConfig) {
			pc.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam}
		}), want: `spec.scope.teamRef: Required value: teamRef is required when scope type is "team"`},
		{name: "ipam without pools", prep: "payments", user: olive, op: policy.Create, obj: providerConfig("ipam", func(pc *v1alpha1.ProviderConfig) {
			pc.Spec.Network = &v1alpha1.ProviderNetwork{Mode: v1alpha1.NetworkModeIPAM}
		}), want: `spec.network.poolRefs: Required value: at least one poolRef is required when network mode is "ipam"`},
		{name: "ipam on aws", prep: "payments", user: olive, op: policy.Create, obj: providerConfig("aws", func(pc *v1alpha1.ProviderConfig) {
			pc.Spec.Provider, pc.Spec.Harvester, pc.Spec.AWS = "aws", nil, &v1alpha1.AWSConfig{Region: "us-east-1"}
			pc.Spec.Network = &v1alpha1.ProviderNetwork{Mode: v1alpha1.NetworkModeIPAM, PoolRefs: []v1alpha1.PoolRef{{Name: "aws-pool"}}}
		}), want: `spec.network.mode: Forbidden: IPAM mode is not supported for cloud providers`},
		{name: "document rule: nutanix endpoint over http", prep: "payments", user: olive, op: policy.Create, obj: providerConfig("ntx", func(pc *v1alpha1.ProviderConfig) {
			pc.Spec.Provider, pc.Spec.Harvester = "nutanix", nil
			pc.Spec.Nutanix = &v1alpha1.NutanixConfig{Endpoint: "http://prism.example.com", ClusterUUID: "c", SubnetUUID: "s"}
		}), want: `spec.nutanix.endpoint: Invalid value: "http://prism.example.com": must be an https:// URL`},
		{name: "document rule: proxmox vmid range reversed", prep: "payments", user: olive, op: policy.Create, obj: providerConfig("px", func(pc *v1alpha1.ProviderConfig) {
			pc.Spec.Provider, pc.Spec.Harvester = "proxmox", nil
			pc.Spec.Proxmox = &v1alpha1.ProxmoxConfig{Endpoint: "https://pve.example.com:8006", Nodes: []string{"pve1"}, Storage: "local-lvm",
				VMIDRange: &v1alpha1.VMIDRange{Start: 900, End: 200}}
		}), want: `spec.proxmox.vmidRange.end: Invalid value: 200: must be greater than or equal to start (900)`},
		{name: "valid ProviderConfig", prep: "payments", user: olive, op: policy.Create, obj: providerConfig("ok", nil)},
		{name: "ProviderConfig update to ipam on aws", prep: "provider-limits", user: olive, op: policy.Update, obj: &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "spare", Namespace: "butler-system"}},
			mutate: func(o client.Object) client.Object {
				pc := o.(*v1alpha1.ProviderConfig)
				pc.Spec.Provider, pc.Spec.Harvester, pc.Spec.AWS = "aws", nil, &v1alpha1.AWSConfig{Region: "us-east-1"}
				pc.Spec.Network = &v1alpha1.ProviderNetwork{Mode: v1alpha1.NetworkModeIPAM, PoolRefs: []v1alpha1.PoolRef{{Name: "p"}}}
				return pc
			}, want: `spec.network.mode: Forbidden: IPAM mode is not supported for cloud providers`},
		{name: "deleting a ProviderConfig in use", prep: "payments", user: olive, op: policy.Delete, obj: &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "harvester-prod", Namespace: "butler-system"}},
			want: `metadata.name: Forbidden: cannot delete ProviderConfig "harvester-prod": TenantCluster payments/bob-checkout still references it`},
		{name: "deleting an unused ProviderConfig", prep: "provider-limits", user: olive, op: policy.Delete, obj: &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "spare", Namespace: "butler-system"}}},
	}

	// Group by fixture, in a stable order, loading each once.
	byPrep := map[string][]parityCase{}
	var names []string
	for _, c := range cases {
		if _, ok := preps[c.prep]; !ok {
			t.Fatalf("%s: no prep %q", c.name, c.prep)
		}
		if _, ok := byPrep[c.prep]; !ok {
			names = append(names, c.prep)
		}
		byPrep[c.prep] = append(byPrep[c.prep], c)
	}
	sort.Strings(names)
	rules := map[string]bool{}
	for _, p := range names {
		prep := preps[p]
		env.LoadExampleEnforced(t, func(ctx context.Context, c client.Client) error {
			if prep == nil {
				return nil
			}
			return prep(ctx, t, c)
		})
		for _, c := range byPrep[p] {
			t.Run(c.name, func(t *testing.T) {
				ctx := context.Background()
				pre := preflight(ctx, t, env, c)
				hook, got := server(ctx, t, env, c)
				if pre != got {
					t.Errorf("preflight and server differ:\npreflight: %s\nserver:    %s", pre, got)
				}
				if got != c.want {
					t.Errorf("server:\n got: %s\nwant: %s", got, c.want)
				}
				if got != "" {
					if want := map[string]string{"TenantCluster": webhook.NameTenantCluster, "Team": webhook.NameTeam, "ProviderConfig": webhook.NameProviderConfig,
						"ClusterCreationPolicy": webhook.NameCreationPolicy}[kindOf(c.obj)]; hook != want {
						t.Errorf("denied by %q, want %q", hook, want)
					}
					rules[kindOf(c.obj)+": "+firstLine(got)] = true
				}
			})
		}
	}
	t.Logf("%d requests, %d distinct refusals, every one identical from the preflight and the server", len(cases), len(rules))
}

func kindOf(o client.Object) string {
	switch o.(type) {
	case *v1alpha1.TenantCluster:
		return "TenantCluster"
	case *v1alpha1.Team:
		return "Team"
	case *v1alpha1.ProviderConfig:
		return "ProviderConfig"
	case *v1alpha1.ClusterCreationPolicy:
		return "ClusterCreationPolicy"
	}
	return fmt.Sprintf("%T", o)
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// preflight is what the CLI says before sending: the same reads, as the user, through the
// live store, and the same policy calls (teamedit.Admit for Teams; providerutil.Problems for
// ProviderConfigs, the ProviderConfig commands' check).
func preflight(ctx context.Context, t *testing.T, env *testenv.Env, c parityCase) string {
	t.Helper()
	cfg := env.UserConfig(c.user)
	if len(c.groups) > 0 {
		cfg = env.Impersonating(c.user, c.groups...)
	}
	s, err := live.NewForConfig(cfg, "parity-preflight")
	if err != nil {
		t.Fatal(err)
	}
	msg := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	switch obj := c.obj.(type) {
	case *v1alpha1.TenantCluster:
		cur, old := obj.DeepCopy(), (*v1alpha1.TenantCluster)(nil)
		if c.op == policy.Update {
			if old, err = s.GetCluster(ctx, obj.Namespace, obj.Name); err != nil {
				t.Fatal(err)
			}
			cur = c.mutate(old.DeepCopy()).(*v1alpha1.TenantCluster)
		}
		id, err := s.Identity(ctx)
		if err != nil {
			t.Fatal(err)
		}
		req := policy.ClusterRequest{Operation: c.op, Cluster: cur, Old: old, Username: id.Username}
		if cur.Spec.TeamRef != nil {
			team, err := s.GetTeam(ctx, cur.Spec.TeamRef.Name)
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			req.Team = team
		}
		if req.Siblings, err = s.ListClusters(ctx, cur.Namespace); err != nil {
			t.Fatal(err)
		}
		if ref := cur.Spec.ProviderConfigRef; ref != nil {
			ns := ref.Namespace
			if ns == "" {
				ns = v1alpha1.DefaultProviderNamespace
			}
			pc, err := s.GetProviderConfig(ctx, ns, ref.Name)
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			req.ProviderConfig = pc
		}
		if req.Policies, err = s.ListClusterCreationPolicies(ctx); err != nil {
			t.Fatal(err)
		}
		if c.op == policy.Create && req.Team != nil {
			// butlerctl cluster create checks the merged default addons (no extras here).
			d, err := policy.ResolveDefaults(req.Team, cur.Labels[v1alpha1.LabelEnvironment], policy.Explicit{KubernetesVersion: cur.Spec.KubernetesVersion})
			if err != nil {
				t.Fatal(err)
			}
			req.Addons = d.Addons
		}
		d := policy.AdmitCluster(req)
		return msg(d.Err())
	case *v1alpha1.Team:
		var old *v1alpha1.Team
		cur := obj.DeepCopy()
		if c.op == policy.Update {
			if old, err = s.GetTeam(ctx, obj.Name); err != nil {
				t.Fatal(err)
			}
			cur = c.mutate(old.DeepCopy()).(*v1alpha1.Team)
		}
		_, err := teamedit.Admit(ctx, s, c.op, old, cur)
		var denial *policy.Denial
		if err != nil && !errors.As(err, &denial) {
			t.Fatalf("preflight: %v", err)
		}
		return msg(err)
	case *v1alpha1.ProviderConfig:
		switch c.op {
		case policy.Delete:
			pc, err := s.GetProviderConfig(ctx, obj.Namespace, obj.Name)
			if err != nil {
				t.Fatal(err)
			}
			clusters, err := s.ListClusters(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if ferr := policy.ProviderDeleteGuard(pc, clusters); ferr != nil {
				return ferr.Error()
			}
			return ""
		case policy.Update:
			pc, err := s.GetProviderConfig(ctx, obj.Namespace, obj.Name)
			if err != nil {
				t.Fatal(err)
			}
			obj = c.mutate(pc).(*v1alpha1.ProviderConfig)
		}
		if probs := providerutil.Problems(manifest.Object{Obj: obj}); len(probs) > 0 {
			return providerutil.Aggregate(probs)
		}
		return ""
	case *v1alpha1.ClusterCreationPolicy:
		others, err := s.ListClusterCreationPolicies(ctx)
		if err != nil {
			t.Fatal(err)
		}
		teams := func(name string) *v1alpha1.Team {
			tm, err := s.GetTeam(ctx, name)
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			return tm
		}
		d := policy.AdmitPolicy(policy.PolicyRequest{Operation: c.op, Policy: obj, Team: teams, Others: others})
		return msg(d.Err())
	}
	t.Fatalf("no preflight for %T", c.obj)
	return ""
}

// server sends the request with client-go, as the user, as a dry run: the API server runs
// its admission (the webhook) and stores nothing. It returns the refusing webhook and its
// message without the API server's prefix.
func server(ctx context.Context, t *testing.T, env *testenv.Env, c parityCase) (string, string) {
	t.Helper()
	cfg := env.UserConfig(c.user)
	if len(c.groups) > 0 {
		cfg = env.Impersonating(c.user, c.groups...)
	}
	cl, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	obj := c.obj.DeepCopyObject().(client.Object)
	switch c.op {
	case policy.Create:
		err = cl.Create(ctx, obj, client.DryRunAll)
	case policy.Update:
		if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		err = cl.Update(ctx, c.mutate(obj), client.DryRunAll)
	case policy.Delete:
		err = cl.Delete(ctx, obj, client.DryRunAll)
	}
	return testenv.Denial(t, err)
}

// grantTeamWriters lets two groups do what the harness users may not: write the payments
// Team (by name, so they stay no platform admins: that review asks about every Team), and
// create Teams.
func grantTeamWriters(t *testing.T, env *testenv.Env) {
	t.Helper()
	ctx := context.Background()
	group := v1alpha1.GroupVersion.Group
	objs := []client.Object{
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "parity-payments-editor"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{group}, Resources: []string{"teams"}, ResourceNames: []string{"payments"}, Verbs: []string{"get", "update", "patch"}}}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "parity-team-creator"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{group}, Resources: []string{"teams"}, Verbs: []string{"create"}}}},
	}
	for _, b := range [][2]string{{"parity-payments-editor", "parity:payments-editors"}, {"parity-team-creator", "parity:team-creators"}} {
		objs = append(objs, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: b[0]},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: b[0]},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: b[1]}}})
	}
	for _, o := range objs {
		if err := env.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// createFromTxtar creates the objects of the more/ files of a testscript (the worked
// example's extra clusters), as the admin.
func createFromTxtar(ctx context.Context, t *testing.T, c client.Client, script string) error {
	ar, err := txtar.ParseFile(filepath.Join(repoRoot(t), "testdata", "script", script))
	if err != nil {
		return err
	}
	n := 0
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "more/") {
			continue
		}
		objs, err := manifest.Decode(f.Name, f.Data)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if err := c.Create(ctx, o.Obj.(client.Object)); err != nil {
				return err
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("%s: no objects under more/", script)
	}
	return nil
}

func teamLimits(f func(*v1alpha1.TeamResourceLimits)) func(context.Context, *testing.T, client.Client) error {
	return func(ctx context.Context, t *testing.T, c client.Client) error {
		return patchTeam(ctx, c, func(tm *v1alpha1.Team) {
			tm.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{}
			f(tm.Spec.ResourceLimits)
		})
	}
}

func patchTeam(ctx context.Context, c client.Client, f func(*v1alpha1.Team)) error {
	tm := &v1alpha1.Team{}
	if err := c.Get(ctx, types.NamespacedName{Name: "payments"}, tm); err != nil {
		return err
	}
	f(tm)
	return c.Update(ctx, tm)
}

func i32(n int32) *int32 { return &n }

func qty(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

// cluster is a TenantCluster of team payments as butlerctl cluster create renders it.
var cluster = testenv.Cluster

// withProvider points a cluster at another ProviderConfig; "" at none.
func withProvider(c *v1alpha1.TenantCluster, name string) *v1alpha1.TenantCluster {
	if name == "" {
		c.Spec.ProviderConfigRef = nil
		return c
	}
	c.Spec.ProviderConfigRef = &v1alpha1.ProviderReference{Name: name}
	return c
}

func newTeam(name string, f func(*v1alpha1.Team)) *v1alpha1.Team {
	tm := &v1alpha1.Team{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTeam},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.TeamSpec{DisplayName: name},
	}
	if f != nil {
		f(tm)
	}
	return tm
}

// providerConfig is a valid platform Harvester ProviderConfig in butler-system, changed by f.
func providerConfig(name string, f func(*v1alpha1.ProviderConfig)) *v1alpha1.ProviderConfig {
	pc := &v1alpha1.ProviderConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindProviderConfig},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "butler-system"},
		Spec: v1alpha1.ProviderConfigSpec{
			Provider:       v1alpha1.ProviderHarvester,
			CredentialsRef: v1alpha1.SecretReference{Name: name + "-credentials", Namespace: "butler-system"},
			Harvester:      &v1alpha1.HarvesterConfig{Endpoint: "https://harvester.example.com:6443", Namespace: "default", NetworkName: "default/vlan-100"},
		},
	}
	if f != nil {
		f(pc)
	}
	return pc
}
