package policy

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Why a migration leaves a cluster where it is (MigrationSkip.Reason).
const (
	// SkipAlreadyInTarget: the cluster already carries the target environment's label.
	SkipAlreadyInTarget = "already-in-target"
	// SkipOtherEnvironment: the cluster is in another environment and relabelling was not
	// asked for.
	SkipOtherEnvironment = "other-environment"
	// SkipOtherTeam: the cluster's spec.teamRef names another team.
	SkipOtherTeam = "other-team"
	// SkipDeleting: the cluster is being deleted.
	SkipDeleting = "deleting"
	// SkipNotFound: a cluster named in the selection does not exist.
	SkipNotFound = "not-found"
	// SkipRefused: the server's rules would refuse the patch (the Message is the server's).
	SkipRefused = "refused"
)

// Caps a migration plan is checked against (CapExcess.Cap).
const (
	CapMaxClusters          = "maxClusters"
	CapMaxClustersPerMember = "maxClustersPerMember"
)

// MigrationSelection is which clusters of the team namespace a migration considers: the
// named ones, all of them, or those a label selector matches. Exactly one should be set;
// Names wins over All, All over Selector.
type MigrationSelection struct {
	Names    []string
	All      bool
	Selector labels.Selector
}

// MigrationRequest is a migration of clusters into one environment of a team
// (docs/rules.md §10).
type MigrationRequest struct {
	Team        *v1alpha1.Team
	Environment string // the target; must be one of Team's environments
	// Clusters is every TenantCluster of the team namespace: the candidates and the usage
	// the caps are checked against (clusters being deleted count, as on the server).
	Clusters  []v1alpha1.TenantCluster
	Selection MigrationSelection
	// Relabel moves clusters that are in another environment too; without it they are
	// skipped and only unlabelled clusters move.
	Relabel bool
	// AllowOverQuota lets a plan that goes past the environment's caps proceed.
	AllowOverQuota bool
	// ProviderConfig finds the ProviderConfig a cluster references, for the preflight of
	// each patch (the server checks it on every update). found false means not found. When
	// the func is nil the ProviderConfigs are unknown (the caller could not read them) and
	// the provider and team-limit checks are left to the server.
	ProviderConfig func(ref *v1alpha1.ProviderReference) (pc *v1alpha1.ProviderConfig, found bool)
	// Username is the requesting identity, for the preflight.
	Username string
	// Policies is every ClusterCreationPolicy: a migration is an update, and the target
	// environment's policies apply. ForcePolicy moves clusters only they refuse, for the
	// server to answer; clusters another rule refuses are still skipped.
	Policies    []v1alpha1.ClusterCreationPolicy
	ForcePolicy bool
}

// MigrationMove is one cluster a migration patches.
type MigrationMove struct {
	Cluster string `json:"cluster"`
	// From is the environment label before ("" for an unlabelled cluster).
	From string `json:"from"`
	To   string `json:"to"`
	// Owner is who the cluster counts for in per-member caps: the owner annotation, else
	// creator-email, lower-cased; "" when it has neither.
	Owner string `json:"owner,omitempty"`
	// Relabel is true when From is another environment.
	Relabel bool `json:"relabel,omitempty"`
	// Cleanup is true when the cluster is already in To but still carries the
	// migration-operation annotation (an interrupted run, or butler-cli, which never
	// removed it): only the annotation is removed.
	Cleanup bool `json:"cleanup,omitempty"`
}

// MigrationSkip is one cluster a migration leaves alone, and why.
type MigrationSkip struct {
	Cluster string `json:"cluster"`
	From    string `json:"from"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// CapExcess is one cap of the target environment the plan would go past.
type CapExcess struct {
	Cap      string   `json:"cap"`              // CapMaxClusters or CapMaxClustersPerMember
	Member   string   `json:"member,omitempty"` // per-member: the owner, lower-cased
	Current  int      `json:"current"`          // in the environment before the plan
	Moving   int      `json:"moving"`           // that the plan moves in
	After    int      `json:"after"`
	Limit    int      `json:"limit"`
	Over     int      `json:"over"` // After - Limit
	Clusters []string `json:"clusters"`
	Message  string   `json:"message"`
}

// MigrationPlan is what a migration would do, decided before anything changes.
type MigrationPlan struct {
	Team        string `json:"team"`
	Environment string `json:"environment"`
	Namespace   string `json:"namespace"`
	// Moves change the environment label, in selection order (names as given, otherwise
	// by name).
	Moves []MigrationMove `json:"moves"`
	// Cleanups only remove a leftover migration annotation.
	Cleanups []MigrationMove `json:"cleanups"`
	Skipped  []MigrationSkip `json:"skipped"`
	// Excess lists the caps the moves would go past; the plan is refused unless
	// AllowOverQuota.
	Excess         []CapExcess `json:"excess"`
	AllowOverQuota bool        `json:"allowOverQuota"`
}

// Refused is true when the plan goes past a cap and that was not allowed.
func (p *MigrationPlan) Refused() bool { return len(p.Excess) > 0 && !p.AllowOverQuota }

// Relabels counts the moves that rewrite another environment's label.
func (p *MigrationPlan) Relabels() int {
	n := 0
	for _, m := range p.Moves {
		if m.Relabel {
			n++
		}
	}
	return n
}

// Count returns how many skipped clusters have reason.
func (p *MigrationPlan) Count(reason string) int {
	n := 0
	for _, s := range p.Skipped {
		if s.Reason == reason {
			n++
		}
	}
	return n
}

// PlanMigration decides, without changing anything, which clusters a migration moves into
// the target environment, which it only cleans up and which it skips and why, and checks
// the environment's caps against the result.
//
// A selected cluster is, in this order (the first that applies):
//   - skipped when its spec.teamRef names another team;
//   - skipped when it is being deleted;
//   - when already labelled with the target: cleaned up if it still carries the
//     migration-operation annotation, otherwise skipped (so a second run changes nothing);
//   - skipped when labelled with another environment, unless Relabel;
//   - skipped as refused when the server's update rules (AdmitCluster with Operation
//     Update, on the patched object) would refuse the patch: for instance a cluster over
//     the team's maxNodesPerCluster, or one whose ProviderConfig is gone;
//   - otherwise moved.
//
// Named clusters that do not exist are skipped as not found (butler-cli ignored them).
//
// Caps: the environment's maxClusters counts the clusters labelled with it (those being
// deleted too) plus the moves; maxClustersPerMember counts, per owner (the owner
// annotation, else creator-email, case-insensitively; clusters with neither count for
// nobody), the owner's clusters there plus the owner's moves. Each cap the result goes past
// is a CapExcess naming who and by how much. Migration is an update, so the server would
// not enforce these caps; the plan does, because the clusters start counting against the
// environment from the next reconcile.
func PlanMigration(req MigrationRequest) MigrationPlan {
	p := MigrationPlan{
		Environment:    req.Environment,
		AllowOverQuota: req.AllowOverQuota,
		Moves:          []MigrationMove{},
		Cleanups:       []MigrationMove{},
		Skipped:        []MigrationSkip{},
		Excess:         []CapExcess{},
	}
	if req.Team != nil {
		p.Team = req.Team.Name
		p.Namespace = req.Team.TeamNamespace()
	}
	for _, c := range selectClusters(req, &p) {
		step := ClassifyMigration(req, c)
		switch {
		case step.Skip != nil:
			p.Skipped = append(p.Skipped, *step.Skip)
		case step.Move.Cleanup:
			p.Cleanups = append(p.Cleanups, step.Move)
		default:
			p.Moves = append(p.Moves, step.Move)
		}
	}
	p.Excess = migrationCaps(req, p.Moves)
	return p
}

// selectClusters returns the selected clusters, in plan order, and records named clusters
// that do not exist.
func selectClusters(req MigrationRequest, p *MigrationPlan) []*v1alpha1.TenantCluster {
	byName := make(map[string]*v1alpha1.TenantCluster, len(req.Clusters))
	for i := range req.Clusters {
		byName[req.Clusters[i].Name] = &req.Clusters[i]
	}
	sel := req.Selection
	var out []*v1alpha1.TenantCluster
	if len(sel.Names) > 0 {
		seen := map[string]bool{}
		for _, n := range sel.Names {
			if seen[n] {
				continue
			}
			seen[n] = true
			c := byName[n]
			if c == nil {
				p.Skipped = append(p.Skipped, MigrationSkip{Cluster: n, Reason: SkipNotFound,
					Message: fmt.Sprintf("not found in namespace %s", p.Namespace)})
				continue
			}
			out = append(out, c)
		}
		return out
	}
	if !sel.All && sel.Selector == nil {
		return nil
	}
	for i := range req.Clusters {
		c := &req.Clusters[i]
		if sel.All || sel.Selector.Matches(labels.Set(c.Labels)) {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// MigrationStep is what a migration does with one cluster: Skip when it leaves it alone,
// else Move (a cleanup when Move.Cleanup).
type MigrationStep struct {
	Move MigrationMove
	Skip *MigrationSkip
}

// ClassifyMigration decides what the migration req does with c (see PlanMigration). A
// migration calls it again on a cluster it re-read after a conflict, so a cluster changed
// meanwhile is re-planned rather than overwritten.
func ClassifyMigration(req MigrationRequest, c *v1alpha1.TenantCluster) MigrationStep {
	env := req.Environment
	from := c.Labels[v1alpha1.LabelEnvironment]
	skip := func(reason, format string, a ...any) MigrationStep {
		return MigrationStep{Skip: &MigrationSkip{Cluster: c.Name, From: from, Reason: reason, Message: fmt.Sprintf(format, a...)}}
	}
	teamName := ""
	if req.Team != nil {
		teamName = req.Team.Name
	}
	if t := c.TeamName(); t != "" && teamName != "" && t != teamName {
		return skip(SkipOtherTeam, "belongs to team %q (spec.teamRef), not %q", t, teamName)
	}
	if c.DeletionTimestamp != nil {
		return skip(SkipDeleting, "being deleted")
	}
	move := MigrationMove{Cluster: c.Name, From: from, To: env, Owner: NormalizeEmail(clusterOwner(c))}
	if from == env {
		if _, ok := c.Annotations[v1alpha1.AnnotationMigration]; !ok {
			return skip(SkipAlreadyInTarget, "already in environment %q", env)
		}
		move.Cleanup = true
	} else if from != "" {
		if !req.Relabel {
			if req.Team != nil && req.Team.Environment(from) == nil {
				return skip(SkipOtherEnvironment, "in environment %q, which team %q no longer defines", from, teamName)
			}
			return skip(SkipOtherEnvironment, "in environment %q", from)
		}
		move.Relabel = true
	}
	if d := preflightMigration(req, c, move.Cleanup); !d.Allowed() && !(req.ForcePolicy && onlyPolicyViolations(d)) {
		return skip(SkipRefused, "%v", d.Err())
	}
	return MigrationStep{Move: move}
}

// MigrationPatched is c as the first migration patch leaves it: the environment label set
// to env and the migration-operation annotation "true", nothing else changed.
func MigrationPatched(c *v1alpha1.TenantCluster, env string) *v1alpha1.TenantCluster {
	n := c.DeepCopy()
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	if n.Annotations == nil {
		n.Annotations = map[string]string{}
	}
	n.Labels[v1alpha1.LabelEnvironment] = env
	n.Annotations[v1alpha1.AnnotationMigration] = v1alpha1.MigrationAnnotationValue
	return n
}

// preflightMigration runs the server's update rules on the patch a migration sends: the
// first patch (label and annotation) for a move, the annotation removal for a cleanup.
func preflightMigration(req MigrationRequest, c *v1alpha1.TenantCluster, cleanup bool) Decision {
	old := c
	var updated *v1alpha1.TenantCluster
	if cleanup {
		updated = c.DeepCopy()
		delete(updated.Annotations, v1alpha1.AnnotationMigration)
	} else {
		updated = MigrationPatched(c, req.Environment)
	}
	var pc *v1alpha1.ProviderConfig
	if ref := c.Spec.ProviderConfigRef; ref != nil {
		if req.ProviderConfig == nil {
			// Unknown: leave the provider and team-limit checks to the server.
			old = c.DeepCopy()
			old.Spec.ProviderConfigRef = nil
			updated.Spec.ProviderConfigRef = nil
		} else if found, ok := req.ProviderConfig(ref); ok {
			pc = found
		}
	}
	return AdmitCluster(ClusterRequest{
		Operation:      Update,
		Cluster:        updated,
		Old:            old,
		Team:           req.Team,
		Siblings:       req.Clusters,
		ProviderConfig: pc,
		Username:       req.Username,
		Policies:       req.Policies,
	})
}

// migrationCaps checks the target environment's caps against the moves.
func migrationCaps(req MigrationRequest, moves []MigrationMove) []CapExcess {
	out := []CapExcess{}
	if len(moves) == 0 {
		return out
	}
	eu := EnvironmentUsageOf(req.Team, req.Environment, req.Clusters)
	teamName := ""
	if req.Team != nil {
		teamName = req.Team.Name
	}
	if limit := int(eu.MaxClusters); limit > 0 {
		after := eu.Clusters + len(moves)
		if after > limit {
			names := make([]string, len(moves))
			for i, m := range moves {
				names[i] = m.Cluster
			}
			out = append(out, CapExcess{
				Cap: CapMaxClusters, Current: eu.Clusters, Moving: len(moves), After: after, Limit: limit,
				Over: after - limit, Clusters: names,
				Message: fmt.Sprintf("environment %q of team %q would have %d cluster(s), %d over its maxClusters cap of %d: it has %d and this plan moves %d into it",
					req.Environment, teamName, after, after-limit, limit, eu.Clusters, len(moves)),
			})
		}
	}
	if limit := int(eu.MaxClustersPerMember); limit > 0 {
		byOwner := map[string][]string{}
		var owners []string
		for _, m := range moves {
			if m.Owner == "" {
				continue
			}
			if _, ok := byOwner[m.Owner]; !ok {
				owners = append(owners, m.Owner)
			}
			byOwner[m.Owner] = append(byOwner[m.Owner], m.Cluster)
		}
		sort.Strings(owners)
		for _, o := range owners {
			cur, moving := eu.Members[o], len(byOwner[o])
			after := cur + moving
			if after <= limit {
				continue
			}
			out = append(out, CapExcess{
				Cap: CapMaxClustersPerMember, Member: o, Current: cur, Moving: moving, After: after, Limit: limit,
				Over: after - limit, Clusters: byOwner[o],
				Message: fmt.Sprintf("user %q would own %d cluster(s) in environment %q, %d over its maxClustersPerMember cap of %d: they own %d there and this plan moves %d of theirs into it (%s)",
					o, after, req.Environment, after-limit, limit, cur, moving, strings.Join(byOwner[o], ", ")),
			})
		}
	}
	return out
}
