package teamedit

import (
	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// EnvFlags are the environment flags shared by env create and env update (butler-cli's).
type EnvFlags struct {
	Description          string
	MaxClusters          int32
	MaxClustersPerMember int32
	ClusterDefaults      []string
	AccessUsers          []string
	AccessGroups         []string
}

// AddFlags registers the flags; update adds how to clear a value.
func (e *EnvFlags) AddFlags(fs *pflag.FlagSet, update bool) {
	clearKey, clearUser, clearGroup, clearDesc := "", "", "", ""
	if update {
		clearKey = "; KEY= removes the key"
		clearUser = "; EMAIL: removes the entry"
		clearGroup = "; NAME: or NAME::IDP removes the entry"
		clearDesc = "; \"\" clears it"
	}
	fs.StringVar(&e.Description, "description", "", "Description"+clearDesc)
	fs.Int32Var(&e.MaxClusters, "max-clusters", 0, "limits.maxClusters: clusters in the environment (0 = no cap, omits the key)")
	fs.Int32Var(&e.MaxClustersPerMember, "max-clusters-per-member", 0, "limits.maxClustersPerMember: clusters each member may own in it (0 = no cap, omits the key)")
	fs.StringArrayVar(&e.ClusterDefaults, "cluster-default", nil,
		"clusterDefaults KEY=VALUE, KEY one of kubernetesVersion, workerCount, workerCPU, workerMemoryGi, workerDiskGi, defaultAddons (comma list) (repeatable"+clearKey+")")
	fs.StringArrayVar(&e.AccessUsers, "access-user", nil, "Elevate a team member here, EMAIL:ROLE (repeatable"+clearUser+")")
	fs.StringArrayVar(&e.AccessGroups, "access-group", nil, "Elevate a team group here, NAME:ROLE[:IDENTITY-PROVIDER] (repeatable"+clearGroup+")")
}

// EnvPatch is what the flags ask to change; nil and empty mean not given.
type EnvPatch struct {
	Description          *string
	MaxClusters          *int32
	MaxClustersPerMember *int32
	Defaults             []DefaultSetting
	Users                []UserGrant
	Groups               []GroupGrant
}

// Empty is true when no flag was given.
func (p EnvPatch) Empty() bool {
	return p.Description == nil && p.MaxClusters == nil && p.MaxClustersPerMember == nil &&
		len(p.Defaults) == 0 && len(p.Users) == 0 && len(p.Groups) == 0
}

// Parse validates the given flags into a patch; allowClear accepts the empty values that
// remove a key or an entry (env update).
func (e *EnvFlags) Parse(fs *pflag.FlagSet, allowClear bool) (EnvPatch, error) {
	var p EnvPatch
	if cmdutil.IsSet(fs, "description") {
		d := e.Description
		p.Description = &d
	}
	for _, c := range []struct {
		name string
		v    int32
		dst  **int32
	}{{"max-clusters", e.MaxClusters, &p.MaxClusters}, {"max-clusters-per-member", e.MaxClustersPerMember, &p.MaxClustersPerMember}} {
		if !cmdutil.IsSet(fs, c.name) {
			continue
		}
		if c.v < 0 {
			return EnvPatch{}, cmdutil.UsageError("--%s must be 0 or more (0 = no cap), got %d", c.name, c.v)
		}
		v := c.v
		*c.dst = &v
	}
	var err error
	if p.Defaults, err = ParseClusterDefaults(e.ClusterDefaults, allowClear); err != nil {
		return EnvPatch{}, err
	}
	if p.Users, p.Groups, err = ParseAccess(e.AccessUsers, e.AccessGroups, allowClear); err != nil {
		return EnvPatch{}, err
	}
	return p, nil
}

// ApplyTo changes env as the patch says; blocks left empty are removed.
func (p EnvPatch) ApplyTo(env *v1alpha1.EnvironmentSpec) {
	if p.Description != nil {
		env.Description = *p.Description
	}
	if p.MaxClusters != nil || p.MaxClustersPerMember != nil {
		if env.Limits == nil {
			env.Limits = &v1alpha1.EnvironmentLimits{}
		}
		if p.MaxClusters != nil {
			v := *p.MaxClusters
			env.Limits.MaxClusters = &v
		}
		if p.MaxClustersPerMember != nil {
			v := *p.MaxClustersPerMember
			env.Limits.MaxClustersPerMember = &v
		}
		env.Limits = PruneEnvLimits(env.Limits)
	}
	if len(p.Defaults) > 0 {
		if env.ClusterDefaults == nil {
			env.ClusterDefaults = &v1alpha1.ClusterDefaults{}
		}
		ApplyClusterDefaults(env.ClusterDefaults, p.Defaults)
		env.ClusterDefaults = PruneClusterDefaults(env.ClusterDefaults)
	}
	if len(p.Users) > 0 || len(p.Groups) > 0 {
		if env.Access == nil {
			env.Access = &v1alpha1.TeamAccess{}
		}
		ApplyAccess(env.Access, p.Users, p.Groups)
		env.Access = PruneAccess(env.Access)
	}
}
