package policy

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Rule ids of the TenantCluster admission preflight, used in Check.Rule and Violation.Rule.
const (
	RuleEnvLabelImmutable      = "env-label-immutable"
	RuleEnvLabelRequired       = "env-label-required"
	RuleEnvUnknown             = "env-unknown"
	RuleEnvMaxClusters         = "env-max-clusters"
	RuleMemberCreatorRequired  = "member-creator-required"
	RuleMemberCreatorMismatch  = "member-creator-mismatch"
	RuleMemberCreatorImmutable = "member-creator-immutable"
	RuleMemberMaxClusters      = "member-max-clusters"
	RuleProviderNotFound       = "provider-not-found"
	RuleProviderTeamScope      = "provider-team-scope"
	RuleProviderAllowed        = "provider-allowed"
	RuleProviderMaxClusters    = "provider-max-clusters"
	RuleProviderMaxNodes       = "provider-max-nodes"
	RuleTeamMaxClusters        = "team-max-clusters"
	RuleTeamMaxTotalNodes      = "team-max-total-nodes"
	RuleTeamMaxNodesPerCluster = "team-max-nodes-per-cluster"
	RuleTeamMaxCPU             = "team-max-cpu"
	RuleTeamMaxMemory          = "team-max-memory"
	RuleTeamMaxStorage         = "team-max-storage"
	RuleTeamAllowedVersions    = "team-allowed-versions"
	RuleTeamAddons             = "team-addons"
	// RuleProviderRefUnset records that the server skips the ProviderConfig,
	// ClusterCreationPolicy and team-limit checks for a cluster without providerConfigRef.
	RuleProviderRefUnset = "provider-ref-unset"
)

// Field paths of the preflight's errors, rendered the way the webhook renders them.
var (
	pathEnvLabel   = field.NewPath("metadata", "labels").Key(v1alpha1.LabelEnvironment)
	pathCreator    = field.NewPath("metadata", "annotations").Key(v1alpha1.AnnotationCreatorEmail)
	pathSpec       = field.NewPath("spec")
	pathPCRef      = field.NewPath("spec", "providerConfigRef")
	pathPCRefName  = field.NewPath("spec", "providerConfigRef", "name")
	pathWorkers    = field.NewPath("spec", "workers")
	pathReplicas   = field.NewPath("spec", "workers", "replicas")
	pathK8sVersion = field.NewPath("spec", "kubernetesVersion")
	pathAddons     = field.NewPath("spec", "addons")

	fieldEnvLabel   = pathEnvLabel.String()
	fieldCreator    = pathCreator.String()
	fieldSpec       = pathSpec.String()
	fieldPCRef      = pathPCRef.String()
	fieldPCRefName  = pathPCRefName.String()
	fieldWorkers    = pathWorkers.String()
	fieldReplicas   = pathReplicas.String()
	fieldK8sVersion = pathK8sVersion.String()
	fieldAddons     = pathAddons.String()
)

// ClusterRequest is one TenantCluster create or update to admit.
type ClusterRequest struct {
	Operation Operation               // Create or Update (scale is an Update); "" is Create
	Cluster   *v1alpha1.TenantCluster // the new object
	Old       *v1alpha1.TenantCluster // Update only; nil is taken to be unchanged (= Cluster)
	// Team is the cluster's team; nil when the cluster has no teamRef or the team does not
	// exist: env and team checks are skipped, as on the server. It is ignored when Cluster
	// has no spec.teamRef, as on the server.
	Team *v1alpha1.Team
	// Siblings is every TenantCluster in the cluster's namespace; any with Cluster's name is
	// ignored. Clusters being deleted count.
	Siblings []v1alpha1.TenantCluster
	// SiblingIndex, when set, stands for Siblings (which is then ignored): the same
	// figures, kept incrementally.
	SiblingIndex *SiblingIndex
	// ProviderConfig is the referenced one; nil while Cluster names one means not found.
	ProviderConfig *v1alpha1.ProviderConfig
	Username       string   // the requesting identity as the server sees it
	Addons         []string // named addons the cluster will get (merged defaults + extras)
	// Policies is every ClusterCreationPolicy; nil when there are none or their CRD is not
	// installed (the server then checks none).
	Policies []v1alpha1.ClusterCreationPolicy
}

// AdmitCluster evaluates a TenantCluster create or update like the newest TenantCluster
// webhook (docs/rules.md §5), collecting every failure as the field error
// the server returns, and records every rule it evaluates as a Check with its numbers.
//
// Order: on update, the environment label immutability check runs first and alone (a denial
// stops everything). Then the environment checks (when the team is known and defines
// environments), then — only when the cluster names a ProviderConfig — not found (which ends
// the evaluation, as on the server), the ProviderConfig team scope, the ClusterCreationPolicy
// pins and allow-lists (Policies), the team's allowedProviders (client-side), the
// ProviderConfig limits and the team resourceLimits. Last come the other client-side team
// feature restrictions, allowedKubernetesVersions and allowed/deniedAddons, evaluated whenever
// the team is known and the ProviderConfig is not missing. A cluster without providerConfigRef
// gets a warning check: the server skips the ProviderConfig, policy and team-limit checks.
//
// Decisions beyond the server's newest webhook, all in docs/rules.md §5.5 and §6:
//   - the team feature restrictions above, which the server does not enforce. On update the
//     provider restriction applies only when providerConfigRef changes and the version
//     restriction only when kubernetesVersion changes, so a restriction added later never
//     blocks scaling an existing cluster; addons are checked whenever Addons lists any;
//   - maxCPUCores / maxMemory / maxStorage refuse a create, as on the server (a zero limit is
//     no limit). The server does not check them on update, so an update is never refused by
//     them: when it raises this cluster's own CPU (memory, storage) — a scale up or a bigger
//     machine — past the quota, the check is allowed with a Warning naming the figures.
//
// Every other aggregate gate (env cap, per-member cap, ProviderConfig limits, team maxClusters
// and maxTotalNodes) is create-only and maxNodesPerCluster applies to create and update,
// exactly as on the server. Operations other than Create and Update are allowed unchecked,
// as on the server. Client-side checks are marked Check.ClientSide.
//
// Checks: Usage is the figure before the request (for counts and sums, the other clusters of
// the namespace; on a growing update the team total with this cluster's old shape), Requested
// what the request asks for (1 cluster, its replicas, its CPU/memory/storage), After the figure
// the limit is compared with. Messages name the team by Team.Name (else teamRef), the
// ProviderConfig by its name (else the ref's) and the namespace by Cluster.Namespace (else the
// team's namespace).
func AdmitCluster(req ClusterRequest) Decision {
	a := clusterAdmission{req: req}
	switch req.Operation {
	case Create, "":
		a.create = true
	case Update:
	default:
		return Decision{}
	}
	a.c = req.Cluster
	if a.c == nil {
		a.c = &v1alpha1.TenantCluster{}
	}
	a.old = req.Old
	if a.create || a.old == nil {
		a.old = a.c
	}
	if a.c.Spec.TeamRef != nil && req.Team != nil {
		a.team = req.Team
		a.teamName = req.Team.Name
		if a.teamName == "" {
			a.teamName = a.c.Spec.TeamRef.Name
		}
		a.limits = req.Team.Spec.ResourceLimits
	}
	a.d.Checks = make([]Check, 0, 24)

	if !a.create && !a.envLabelImmutable() {
		return a.d
	}
	a.environment()
	if !a.provider() {
		return a.d // a missing ProviderConfig ends the evaluation, as on the server
	}
	a.featureRestrictions()
	return a.d
}

type clusterAdmission struct {
	req      ClusterRequest
	create   bool
	c, old   *v1alpha1.TenantCluster
	team     *v1alpha1.Team
	teamName string
	limits   *v1alpha1.TeamResourceLimits
	d        Decision

	statsDone bool
	st        siblingStats
}

// siblingStats is what one pass over the siblings yields.
type siblingStats struct {
	existing int64 // every sibling but the cluster itself, whatever its provider or env
	sameEnv  int64 // siblings labelled with the cluster's environment
	owned    int64 // of those, owned by the cluster's creator-email
	nodes    int64 // worker replicas of the siblings
	cpu      quantitySum
	mem      quantitySum
	disk     quantitySum
}

// siblings makes the single pass over req.Siblings, once.
func (a *clusterAdmission) siblings() *siblingStats {
	st := &a.st
	if a.statsDone {
		return st
	}
	a.statsDone = true
	self := a.c.Name
	env := a.c.Labels[v1alpha1.LabelEnvironment]
	creator := a.c.Annotations[v1alpha1.AnnotationCreatorEmail]
	sibs := a.req.Siblings
	if x := a.req.SiblingIndex; x != nil {
		if s, ok := x.stats(self, env, creator); ok {
			*st = s
			return st
		}
		sibs = x.Clusters()
	}
	st.cpu, st.mem, st.disk = newQuantitySum(resource.DecimalSI), newQuantitySum(resource.BinarySI), newQuantitySum(resource.BinarySI)
	for i := range sibs {
		s := &sibs[i]
		if s.Name == self {
			continue
		}
		st.existing++
		w := &s.Spec.Workers
		r := int64(w.Replicas)
		st.nodes += r
		st.cpu.addInt(int64(w.MachineTemplate.CPU)*r, resource.DecimalSI, 1)
		st.mem.addQuantity(w.MachineTemplate.Memory, r)
		st.disk.addQuantity(w.MachineTemplate.DiskSize, r)
		if env != "" && InEnvironment(s, env) {
			st.sameEnv++
			if creator != "" && sameOwner(clusterOwner(s), creator) {
				st.owned++
			}
		}
	}
	return st
}

// check records an allowed rule.
func (a *clusterAdmission) check(c Check) {
	c.Allowed = true
	a.d.Checks = append(a.d.Checks, c)
}

// deny records a violated rule and its field error; a rule of this project's own says so
// in its message.
func (a *clusterAdmission) deny(c Check, err *field.Error) {
	if BeyondButler(c.Rule) {
		err.Detail += beyondNote(c.Rule)
	}
	c.Allowed = false
	c.Message = err.Error()
	a.d.Checks = append(a.d.Checks, c)
	a.d.Violations = append(a.d.Violations, Violation{Rule: c.Rule, Error: err})
}

// envLabelImmutable is step 0 (update only); false when denied.
func (a *clusterAdmission) envLabelImmutable() bool {
	oldEnv, newEnv := a.old.Labels[v1alpha1.LabelEnvironment], a.c.Labels[v1alpha1.LabelEnvironment]
	ck := Check{Rule: RuleEnvLabelImmutable, Field: fieldEnvLabel, Usage: oldEnv, Requested: newEnv, After: newEnv}
	if oldEnv == newEnv || a.c.Annotations[v1alpha1.AnnotationMigration] == v1alpha1.MigrationAnnotationValue {
		a.check(ck)
		return true
	}
	ck.After = oldEnv
	a.deny(ck, field.Forbidden(pathEnvLabel, fmt.Sprintf(
		"env label changes require the %q annotation set to \"true\"; use `butleradm env migrate`",
		v1alpha1.AnnotationMigration)))
	return false
}

// environment is step 1.
func (a *clusterAdmission) environment() {
	t := a.team
	if t == nil || len(t.Spec.Environments) == 0 {
		return
	}
	env := a.c.Labels[v1alpha1.LabelEnvironment]
	oldEnv := a.old.Labels[v1alpha1.LabelEnvironment]

	// c. missing label; an unlabelled cluster updated without touching the label is allowed.
	ck := Check{Rule: RuleEnvLabelRequired, Field: fieldEnvLabel, Requested: env}
	if env == "" {
		if !a.create && oldEnv == "" {
			a.check(ck)
			return
		}
		a.deny(ck, field.Required(pathEnvLabel, fmt.Sprintf(
			"team %q defines environments; TenantClusters must carry this label set to one of the team's env names", a.teamName)))
		return
	}
	a.check(ck)

	// d. unknown environment; an unchanged dangling label is tolerated on update. The label
	// must match exactly, as the server matches it: a label differing only in case is
	// refused there, so it is refused here (counting, by contrast, folds case).
	var spec *v1alpha1.EnvironmentSpec
	for i := range t.Spec.Environments {
		if t.Spec.Environments[i].Name == env {
			spec = &t.Spec.Environments[i]
			break
		}
	}
	names := make([]string, len(t.Spec.Environments))
	for i := range t.Spec.Environments {
		names[i] = t.Spec.Environments[i].Name
	}
	ck = Check{Rule: RuleEnvUnknown, Field: fieldEnvLabel, Limit: quoteList(names), Requested: env}
	if spec == nil {
		if !a.create && oldEnv == env {
			a.check(ck)
			return
		}
		a.deny(ck, field.NotSupported(pathEnvLabel, env, names))
		return
	}
	a.check(ck)

	lim := spec.Limits
	if lim == nil {
		return
	}

	// g. environment cap, create only, 0 = no cap.
	if a.create && lim.MaxClusters != nil && *lim.MaxClusters > 0 {
		limit := int64(*lim.MaxClusters)
		n := a.siblings().sameEnv
		ck := Check{Rule: RuleEnvMaxClusters, Field: fieldSpec, Limit: fmtCount(limit), Usage: fmtCount(n), Requested: "1", After: fmtCount(n + 1)}
		if n+1 > limit {
			a.deny(ck, field.Forbidden(pathSpec, fmt.Sprintf(
				"environment %q in team %q already has %d cluster(s); env quota limits to %d", env, a.teamName, n, limit)))
		} else {
			a.check(ck)
		}
	}

	// h. per-member cap, 0 = no cap; the first branch that applies fires.
	if lim.MaxClustersPerMember == nil || *lim.MaxClustersPerMember <= 0 {
		return
	}
	limit := int64(*lim.MaxClustersPerMember)
	creator := a.c.Annotations[v1alpha1.AnnotationCreatorEmail]
	if !a.create {
		oldCreator := a.old.Annotations[v1alpha1.AnnotationCreatorEmail]
		ck := Check{Rule: RuleMemberCreatorImmutable, Field: fieldCreator, Usage: oldCreator, Requested: creator, After: creator}
		if creator != oldCreator {
			ck.After = oldCreator
			a.deny(ck, field.Forbidden(pathCreator, fmt.Sprintf(
				"%s is immutable; cannot change from %q to %q", v1alpha1.AnnotationCreatorEmail, oldCreator, creator)))
		} else {
			a.check(ck)
		}
		return
	}
	ck = Check{Rule: RuleMemberCreatorRequired, Field: fieldCreator, Requested: creator}
	if creator == "" {
		a.deny(ck, field.Required(pathCreator, fmt.Sprintf(
			"environment %q sets maxClustersPerMember; TenantClusters must carry the %s annotation (set automatically by butler-server; kubectl-direct creates must supply it explicitly)",
			env, v1alpha1.AnnotationCreatorEmail)))
		return
	}
	a.check(ck)
	ck = Check{Rule: RuleMemberCreatorMismatch, Field: fieldCreator, Limit: a.req.Username, Requested: creator}
	if !EmailsEqual(creator, a.req.Username) {
		a.deny(ck, field.Invalid(pathCreator, creator, fmt.Sprintf(
			"%s must match the requesting identity %q; environment %q enforces per-member caps and cannot accept an annotation claiming a different user",
			v1alpha1.AnnotationCreatorEmail, a.req.Username, env)))
		return
	}
	a.check(ck)
	n := a.siblings().owned
	ck = Check{Rule: RuleMemberMaxClusters, Field: fieldCreator, Limit: fmtCount(limit), Usage: fmtCount(n), Requested: "1", After: fmtCount(n + 1)}
	if n+1 > limit {
		a.deny(ck, field.Forbidden(pathCreator, fmt.Sprintf(
			"user %q already owns %d cluster(s) in environment %q; env limits to %d per member", creator, n, env, limit)))
	} else {
		a.check(ck)
	}
}

// provider is steps 2 to 8, with the client-side allowedProviders check after the
// ClusterCreationPolicy step; false when the ProviderConfig is missing, which ends the
// server's evaluation.
func (a *clusterAdmission) provider() bool {
	ref := a.c.Spec.ProviderConfigRef
	if ref == nil {
		a.providerRefUnset() // 2. no ProviderConfig: no provider, policy or team-limit checks
		return true
	}
	ns := ref.Namespace
	if ns == "" {
		ns = v1alpha1.DefaultProviderNamespace
	}
	pc := a.req.ProviderConfig
	ck := Check{Rule: RuleProviderNotFound, Field: fieldPCRefName, Requested: ns + "/" + ref.Name}
	if pc == nil {
		a.deny(ck, field.NotFound(pathPCRefName, ref.Name))
		return false // 3. not found ends the server's evaluation
	}
	a.check(ck)
	pcName := pc.Name
	if pcName == "" {
		pcName = ref.Name
	}

	// 4. team scope
	if s := pc.Spec.Scope; s != nil && s.Type == v1alpha1.ScopeTeam && s.TeamRef != nil {
		tcTeam := a.c.TeamName()
		ck := Check{Rule: RuleProviderTeamScope, Field: fieldPCRef, Limit: s.TeamRef.Name, Requested: tcTeam}
		if tcTeam != s.TeamRef.Name {
			a.deny(ck, field.Forbidden(pathPCRef, fmt.Sprintf(
				"ProviderConfig %q is scoped to team %q, but TenantCluster references team %q", pcName, s.TeamRef.Name, tcTeam)))
		} else {
			a.check(ck)
		}
	}

	a.creationPolicies(pc) // 5. ClusterCreationPolicy pins and allow-lists
	// client-side: the team's allowedProviders
	if lim := a.limits; lim != nil && len(lim.AllowedProviders) > 0 && (a.create || providerRefChanged(a.old, a.c)) {
		list := quoteList(lim.AllowedProviders)
		ck := Check{Rule: RuleProviderAllowed, Field: fieldPCRef, Limit: list, Requested: pc.Spec.Provider, ClientSide: true}
		if !ProviderAllowed(pc.Spec.Provider, lim.AllowedProviders) {
			a.deny(ck, field.Forbidden(pathPCRef, fmt.Sprintf(
				"provider %q is not allowed for team %q; allowed: %s", pc.Spec.Provider, a.teamName, list)))
		} else {
			a.check(ck)
		}
	}

	replicas := int64(a.c.Spec.Workers.Replicas)
	if l := pc.Spec.Limits; a.create && l != nil {
		// 6. clusters per team namespace, counting every sibling whatever its provider
		if l.MaxClustersPerTeam != nil {
			limit := int64(*l.MaxClustersPerTeam)
			n := a.siblings().existing
			ck := Check{Rule: RuleProviderMaxClusters, Field: fieldSpec, Limit: fmtCount(limit), Usage: fmtCount(n), Requested: "1", After: fmtCount(n + 1)}
			if n >= limit {
				a.deny(ck, field.Forbidden(pathSpec, fmt.Sprintf(
					"team namespace %q already has %d cluster(s); ProviderConfig %q limits to %d", a.namespace(), n, pcName, limit)))
			} else {
				a.check(ck)
			}
		}
		// 7. worker nodes per team namespace
		if l.MaxNodesPerTeam != nil {
			limit := int64(*l.MaxNodesPerTeam)
			n := a.siblings().nodes
			total := n + replicas
			ck := Check{Rule: RuleProviderMaxNodes, Field: fieldReplicas, Limit: fmtCount(limit), Usage: fmtCount(n), Requested: fmtCount(replicas), After: fmtCount(total)}
			if total > limit {
				a.deny(ck, field.Forbidden(pathReplicas, fmt.Sprintf(
					"total worker replicas (%d) would exceed ProviderConfig %q per-team node limit (%d)", total, pcName, limit)))
			} else {
				a.check(ck)
			}
		}
	}

	a.teamLimits(replicas)
	return true
}

// teamLimits is step 8.
func (a *clusterAdmission) teamLimits(replicas int64) {
	lim := a.limits
	if lim == nil {
		return
	}
	team := a.teamName
	// a. clusters, create only; 0 allows none
	if a.create && lim.MaxClusters != nil {
		limit := int64(*lim.MaxClusters)
		n := a.siblings().existing
		ck := Check{Rule: RuleTeamMaxClusters, Field: fieldSpec, Limit: fmtCount(limit), Usage: fmtCount(n), Requested: "1", After: fmtCount(n + 1)}
		if n+1 > limit {
			a.deny(ck, field.Forbidden(pathSpec, fmt.Sprintf(
				"team %q already has %d cluster(s); team quota limits to %d", team, n, limit)))
		} else {
			a.check(ck)
		}
	}
	// b. total worker nodes, create only
	if a.create && lim.MaxTotalNodes != nil {
		limit := int64(*lim.MaxTotalNodes)
		n := a.siblings().nodes
		total := n + replicas
		ck := Check{Rule: RuleTeamMaxTotalNodes, Field: fieldReplicas, Limit: fmtCount(limit), Usage: fmtCount(n), Requested: fmtCount(replicas), After: fmtCount(total)}
		if total > limit {
			a.deny(ck, field.Forbidden(pathReplicas, fmt.Sprintf(
				"total worker nodes (%d) would exceed team %q node quota (%d)", total, team, limit)))
		} else {
			a.check(ck)
		}
	}
	// c. worker replicas per cluster, create and update (scale)
	if lim.MaxNodesPerCluster != nil {
		limit := int64(*lim.MaxNodesPerCluster)
		before := int64(0)
		if !a.create {
			before = int64(a.old.Spec.Workers.Replicas)
		}
		ck := Check{Rule: RuleTeamMaxNodesPerCluster, Field: fieldReplicas, Limit: fmtCount(limit), Usage: fmtCount(before), Requested: fmtCount(replicas), After: fmtCount(replicas)}
		if replicas > limit {
			a.deny(ck, field.Forbidden(pathReplicas, fmt.Sprintf(
				"worker replicas (%d) exceeds team %q per-cluster node limit (%d)", replicas, team, limit)))
		} else {
			a.check(ck)
		}
	}
	// d-f. CPU, memory, storage: create, and updates that grow this cluster's share
	if computeLimitSet(lim.MaxCPUCores) {
		req, old := cpuDemand(a.c), cpuDemand(a.old)
		a.computeQuota(RuleTeamMaxCPU, "CPU", &a.siblings().cpu, &req, &old, lim.MaxCPUCores)
	}
	if computeLimitSet(lim.MaxMemory) {
		req, old := memoryDemand(a.c), memoryDemand(a.old)
		a.computeQuota(RuleTeamMaxMemory, "memory", &a.siblings().mem, &req, &old, lim.MaxMemory)
	}
	if computeLimitSet(lim.MaxStorage) {
		req, old := storageDemand(a.c), storageDemand(a.old)
		a.computeQuota(RuleTeamMaxStorage, "storage", &a.siblings().disk, &req, &old, lim.MaxStorage)
	}
}

// cpuDemand, memoryDemand and storageDemand are a cluster's own share of the team's
// compute quotas: worker replicas × the machine template's CPU, memory, disk.
func cpuDemand(c *v1alpha1.TenantCluster) quantitySum {
	s := newQuantitySum(resource.DecimalSI)
	s.addInt(int64(c.Spec.Workers.MachineTemplate.CPU)*int64(c.Spec.Workers.Replicas), resource.DecimalSI, 1)
	return s
}

func memoryDemand(c *v1alpha1.TenantCluster) quantitySum {
	s := newQuantitySum(resource.BinarySI)
	s.addQuantity(c.Spec.Workers.MachineTemplate.Memory, int64(c.Spec.Workers.Replicas))
	return s
}

func storageDemand(c *v1alpha1.TenantCluster) quantitySum {
	s := newQuantitySum(resource.BinarySI)
	s.addQuantity(c.Spec.Workers.MachineTemplate.DiskSize, int64(c.Spec.Workers.Replicas))
	return s
}

// NeedsSiblings reports whether AdmitCluster can read Siblings for this request: on
// create, and on an update that raises the cluster's own CPU, memory or storage (the
// compute quotas are the only update checks that count the other clusters). When it is
// false the decision is the same with Siblings nil, so a caller that lists them from the
// API server (the webhook) can skip the list: a migration's label and annotation patches
// then cost no list of the namespace.
func (r ClusterRequest) NeedsSiblings() bool {
	switch r.Operation {
	case Create, "":
		return true
	case Update:
	default:
		return false
	}
	c, old := r.Cluster, r.Old
	if c == nil {
		c = &v1alpha1.TenantCluster{}
	}
	if old == nil {
		return false // taken to be unchanged
	}
	grows := func(cur, prev quantitySum) bool {
		cq, pq := cur.quantity(), prev.quantity()
		return cq.Cmp(pq) > 0
	}
	return grows(cpuDemand(c), cpuDemand(old)) || grows(memoryDemand(c), memoryDemand(old)) ||
		grows(storageDemand(c), storageDemand(old))
}

// computeLimitSet is the webhook's "set and not zero" test for a compute quota.
func computeLimitSet(q *resource.Quantity) bool {
	if q == nil {
		return false
	}
	return q.Sign() != 0
}

// computeQuota checks one of maxCPUCores, maxMemory, maxStorage: total = the siblings' sum
// plus the cluster's own (replicas × per-worker), denied when total > limit, printed in the
// server's canonical quantity form. On update it applies only when the cluster grows.
func (a *clusterAdmission) computeQuota(rule, what string, others, req, old *quantitySum, limit *resource.Quantity) {
	reqQ := req.quantity()
	if !a.create {
		oldQ := old.quantity()
		if reqQ.Cmp(oldQ) <= 0 {
			return
		}
	}
	before := others.clone()
	if !a.create {
		before.addSum(old)
	}
	total := others.clone()
	total.addSum(req)
	beforeQ, totalQ, limitQ := before.quantity(), total.quantity(), limit.DeepCopy()
	ck := Check{Rule: rule, Field: fieldWorkers, Limit: limitQ.String(), Usage: beforeQ.String(), Requested: reqQ.String(), After: totalQ.String()}
	switch {
	case totalQ.Cmp(limitQ) <= 0:
		a.check(ck)
	case a.create:
		a.deny(ck, field.Forbidden(pathWorkers, fmt.Sprintf(
			"total %s (%s) would exceed team %q %s quota (%s)", what, ck.After, a.teamName, what, ck.Limit)))
	default:
		// The server checks this quota on create only: the update is admitted, with a warning.
		ck.Warning = fmt.Sprintf("total %s (%s) will exceed team %q %s quota (%s); the server checks it on create only and admits this update",
			what, ck.After, a.teamName, what, ck.Limit)
		a.check(ck)
	}
}

// featureRestrictions are the client-side allowedKubernetesVersions and allowed/deniedAddons
// checks (the server enforces neither), evaluated last and only when the team is known.
func (a *clusterAdmission) featureRestrictions() {
	lim := a.limits
	if lim == nil {
		return
	}
	v := a.c.Spec.KubernetesVersion
	if len(lim.AllowedKubernetesVersions) > 0 && (a.create || v != a.old.Spec.KubernetesVersion) {
		ck := Check{Rule: RuleTeamAllowedVersions, Field: fieldK8sVersion, Limit: quoteList(lim.AllowedKubernetesVersions), Requested: v, After: v, ClientSide: true}
		if !VersionAllowed(v, lim.AllowedKubernetesVersions) {
			a.deny(ck, field.NotSupported(pathK8sVersion, v, lim.AllowedKubernetesVersions))
		} else {
			a.check(ck)
		}
	}
	if len(lim.AllowedAddons) == 0 && len(lim.DeniedAddons) == 0 {
		return
	}
	for i, raw := range a.req.Addons {
		name := addonName(raw)
		if name == "" || seenAddon(a.req.Addons[:i], name) {
			continue
		}
		ck := Check{Rule: RuleTeamAddons, Field: fieldAddons, Requested: name, ClientSide: true}
		if !AddonAllowed(name, lim.AllowedAddons, lim.DeniedAddons) {
			a.deny(ck, field.Forbidden(pathAddons, fmt.Sprintf("addon %q is not allowed for team %q", name, a.teamName)))
		} else {
			a.check(ck)
		}
	}
}

func seenAddon(prev []string, name string) bool {
	for _, p := range prev {
		if strings.EqualFold(addonName(p), name) {
			return true
		}
	}
	return false
}

// namespace is the cluster's namespace, or the team's when the object has none yet.
func (a *clusterAdmission) namespace() string {
	if a.c.Namespace != "" || a.team == nil {
		return a.c.Namespace
	}
	return a.team.TeamNamespace()
}

// providerRefChanged is true when an update points the cluster at another ProviderConfig.
func providerRefChanged(old, cur *v1alpha1.TenantCluster) bool {
	o, n := old.Spec.ProviderConfigRef, cur.Spec.ProviderConfigRef
	if o == nil || n == nil {
		return o != n
	}
	on, nn := o.Namespace, n.Namespace
	if on == "" {
		on = v1alpha1.DefaultProviderNamespace
	}
	if nn == "" {
		nn = v1alpha1.DefaultProviderNamespace
	}
	return o.Name != n.Name || on != nn
}

// quoteList renders values as the field package renders supported values: "a", "b".
func quoteList(values []string) string {
	n := 0
	for _, v := range values {
		n += len(v) + 4
	}
	b := make([]byte, 0, n)
	for i, v := range values {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendQuote(b, v)
	}
	return string(b)
}
