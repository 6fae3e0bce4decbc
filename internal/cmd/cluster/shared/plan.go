package shared

import (
	"context"
	"io"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Plan is everything cluster create (and cluster run) worked out before acting: the
// cluster as the server should receive it and the admission rules' decision on it.
type Plan struct {
	Cluster  *v1alpha1.TenantCluster
	Addons   []v1alpha1.TenantAddon
	Defaults policy.Defaults
	Decision policy.Decision
	Role     policy.RoleResult
	Actor    lookup.Actor
	Options  []ExplainedOption
	Team     *v1alpha1.Team
	Siblings []v1alpha1.TenantCluster // the team's clusters before this one
}

// NewPlan reads the team, renders the cluster named name (or, with --generate-name, a
// fresh name no cluster of the team has) with its defaults, and runs the admission rules
// on it. now sets the expiry of --ttl; warnings go to warn.
func NewPlan(ctx context.Context, s store.Reader, warn io.Writer, now time.Time, name string, cs *CreateSpec) (*Plan, error) {
	team, siblings, err := lookup.TeamClusters(ctx, s, cs.Team)
	if err != nil {
		return nil, err
	}
	if err := CheckEnvironment(team, cs.Environment); err != nil {
		return nil, err
	}
	actor, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return nil, err
	}
	p := &Plan{Actor: actor, Team: team, Siblings: siblings}
	p.Role = policy.EnvironmentRole(team, cs.Environment, actor.Identity, actor.PlatformAdmin)
	p.Defaults, err = policy.ResolveDefaults(team, cs.Environment, cs.explicit)
	if err != nil {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	if p.Defaults.KubernetesVersion == "" {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, policy.ErrNoKubernetesVersion)
	}
	ref, pc, err := lookup.Provider(ctx, s, team, cs.Provider)
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = generateName(cs.GenerateName, siblings)
	}
	p.Cluster = render(team, name, cs, p.Defaults, ref, actor.Identity, now)
	policies, options, err := applyOptions(ctx, warn, s, p.Cluster, pc, cs)
	if err != nil {
		return nil, err
	}
	p.Options = options
	p.Addons = tenantAddons(p.Cluster, cs.extras)
	addonNames := append([]string{}, p.Defaults.Addons...)
	for _, a := range cs.extras {
		addonNames = append(addonNames, a.name)
	}
	p.Decision = policy.AdmitCluster(policy.ClusterRequest{
		Operation:      policy.Create,
		Cluster:        p.Cluster,
		Team:           team,
		Siblings:       siblings,
		ProviderConfig: pc,
		Username:       actor.Identity.Username,
		Addons:         addonNames,
		Policies:       policies,
	})
	return p, nil
}

// generateName is prefix and random characters, as the API server's generateName makes
// them, avoiding the names the team's clusters have. The name is chosen here, not by the
// server, because the preflight, the TenantAddons and cluster run all need it beforehand.
func generateName(prefix string, siblings []v1alpha1.TenantCluster) string {
	for {
		name := prefix + utilrand.String(generatedSuffix)
		if !Exists(siblings, name) {
			return name
		}
	}
}

// Exists reports whether a cluster of that name is among clusters (the namespace's).
func Exists(clusters []v1alpha1.TenantCluster, name string) bool {
	for i := range clusters {
		if clusters[i].Name == name {
			return true
		}
	}
	return false
}

// render builds the TenantCluster as the server should receive it.
func render(team *v1alpha1.Team, name string, cs *CreateSpec, d policy.Defaults, ref *v1alpha1.ProviderReference, id policy.Identity, now time.Time) *v1alpha1.TenantCluster {
	labels := map[string]string{}
	for k, v := range cs.labels {
		labels[k] = v
	}
	labels[v1alpha1.LabelTeam] = team.Name
	if cs.Environment != "" {
		labels[v1alpha1.LabelEnvironment] = cs.Environment
	}
	c := &v1alpha1.TenantCluster{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTenantCluster},
		ObjectMeta: metav1.ObjectMeta{
			Name:         name,
			GenerateName: cs.GenerateName,
			Namespace:    team.TeamNamespace(),
			Labels:       labels,
			Annotations:  map[string]string{v1alpha1.AnnotationCreatorEmail: policy.NormalizeEmail(id.Username)},
		},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: d.KubernetesVersion,
			TeamRef:           &v1alpha1.LocalObjectReference{Name: team.Name},
			ProviderConfigRef: ref,
			Workers: v1alpha1.WorkersSpec{
				Replicas: d.WorkerCount,
				MachineTemplate: v1alpha1.MachineTemplate{
					CPU:      d.WorkerCPU,
					Memory:   d.WorkerMemory,
					DiskSize: d.WorkerDisk,
				},
			},
		},
	}
	if cs.TTL > 0 {
		clusterttl.Set(c, now.Add(cs.TTL))
	}
	return c
}
