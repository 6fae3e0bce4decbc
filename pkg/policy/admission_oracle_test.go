package policy_test

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// acOracle is a line-by-line transcription of the newest TenantCluster webhook
// (butler-controller internal/webhook/tenantcluster_webhook.go @ 01c4b78: handleUpdate,
// validateEnvironmentLabelImmutability, validateCreateUpdate, validateEnvironment), with the
// slow Quantity loops the server runs, fed from a ClusterRequest instead of API reads. It
// includes the ClusterCreationPolicy step (ccpOracle) and the tools' client-side additions in
// the same literal style (allowedProviders after the policy step, versions and addons last,
// none after a missing ProviderConfig) so that
// AdmitCluster can be compared with it on any input. Test-only; keep it naive.
func acOracle(req policy.ClusterRequest) error {
	tc := req.Cluster
	if tc == nil {
		tc = &v1alpha1.TenantCluster{}
	}
	var oldTC *v1alpha1.TenantCluster
	switch req.Operation {
	case policy.Create, "":
	case policy.Update:
		oldTC = req.Old
		if oldTC == nil {
			oldTC = tc
		}
		if errs := acOracleImmutability(oldTC, tc); len(errs) > 0 {
			return errs.ToAggregate()
		}
	default:
		return nil
	}
	var team *v1alpha1.Team
	if tc.Spec.TeamRef != nil {
		team = req.Team
	}
	errs, stopped := acOracleServer(req, tc, oldTC, team)
	if !stopped {
		errs = append(errs, acOracleRestrictions(req, tc, oldTC, team)...)
	}
	return errs.ToAggregate()
}

func acOracleImmutability(oldTC, newTC *v1alpha1.TenantCluster) field.ErrorList {
	var errs field.ErrorList
	oldEnv := ""
	if oldTC.Labels != nil {
		oldEnv = oldTC.Labels[v1alpha1.LabelEnvironment]
	}
	newEnv := ""
	if newTC.Labels != nil {
		newEnv = newTC.Labels[v1alpha1.LabelEnvironment]
	}
	if oldEnv == newEnv {
		return errs
	}
	migration := ""
	if newTC.Annotations != nil {
		migration = newTC.Annotations[v1alpha1.AnnotationMigration]
	}
	if migration != "true" {
		errs = append(errs, field.Forbidden(
			field.NewPath("metadata", "labels").Key(v1alpha1.LabelEnvironment),
			fmt.Sprintf("env label changes require the %q annotation set to \"true\"; use `butleradm env migrate`", v1alpha1.AnnotationMigration),
		))
	}
	return errs
}

// acOracleServer is the server's validateCreateUpdate; stopped is true when a missing
// ProviderConfig ended it.
func acOracleServer(req policy.ClusterRequest, tc, oldTC *v1alpha1.TenantCluster, team *v1alpha1.Team) (field.ErrorList, bool) {
	var allErrs field.ErrorList
	isCreate := oldTC == nil
	if tc.Spec.TeamRef != nil && team != nil {
		allErrs = append(allErrs, acOracleEnv(req, tc, oldTC, team)...)
	}
	if tc.Spec.ProviderConfigRef == nil {
		return allErrs, false
	}
	pc := req.ProviderConfig
	if pc == nil {
		return append(allErrs, field.NotFound(field.NewPath("spec", "providerConfigRef", "name"), tc.Spec.ProviderConfigRef.Name)), true
	}
	if pc.Spec.Scope != nil && pc.Spec.Scope.Type == v1alpha1.ScopeTeam && pc.Spec.Scope.TeamRef != nil {
		tcTeamName := ""
		if tc.Spec.TeamRef != nil {
			tcTeamName = tc.Spec.TeamRef.Name
		}
		if tcTeamName != pc.Spec.Scope.TeamRef.Name {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "providerConfigRef"),
				fmt.Sprintf("ProviderConfig %q is scoped to team %q, but TenantCluster references team %q", pc.Name, pc.Spec.Scope.TeamRef.Name, tcTeamName)))
		}
	}
	allErrs = append(allErrs, ccpOracle(req.Policies, tc, pc)...)
	// contract addition: allowedProviders (create, or a changed providerConfigRef)
	if team != nil && team.Spec.ResourceLimits != nil && len(team.Spec.ResourceLimits.AllowedProviders) > 0 &&
		(isCreate || acRefKey(oldTC.Spec.ProviderConfigRef) != acRefKey(tc.Spec.ProviderConfigRef)) {
		ok := false
		for _, p := range team.Spec.ResourceLimits.AllowedProviders {
			if strings.EqualFold(strings.TrimSpace(p), strings.TrimSpace(pc.Spec.Provider)) {
				ok = true
			}
		}
		if !ok {
			q := make([]string, len(team.Spec.ResourceLimits.AllowedProviders))
			for i, p := range team.Spec.ResourceLimits.AllowedProviders {
				q[i] = fmt.Sprintf("%q", p)
			}
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "providerConfigRef"),
				fmt.Sprintf("provider %q is not allowed for team %q; allowed: %s", pc.Spec.Provider, team.Name, strings.Join(q, ", "))+
					"; this is butler-toolkit's policy, not Butler's (rule provider-allowed)"))
		}
	}
	tcList := req.Siblings
	if isCreate && pc.Spec.Limits != nil && pc.Spec.Limits.MaxClustersPerTeam != nil {
		maxClusters := *pc.Spec.Limits.MaxClustersPerTeam
		existingCount := int32(0)
		for i := range tcList {
			if tcList[i].Name != tc.Name {
				existingCount++
			}
		}
		if existingCount >= maxClusters {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec"),
				fmt.Sprintf("team namespace %q already has %d cluster(s); ProviderConfig %q limits to %d", tc.Namespace, existingCount, pc.Name, maxClusters)))
		}
	}
	if isCreate && pc.Spec.Limits != nil && pc.Spec.Limits.MaxNodesPerTeam != nil {
		maxNodes := *pc.Spec.Limits.MaxNodesPerTeam
		totalNodes := tc.Spec.Workers.Replicas
		for i := range tcList {
			if tcList[i].Name != tc.Name {
				totalNodes += tcList[i].Spec.Workers.Replicas
			}
		}
		if totalNodes > maxNodes {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "workers", "replicas"),
				fmt.Sprintf("total worker replicas (%d) would exceed ProviderConfig %q per-team node limit (%d)", totalNodes, pc.Name, maxNodes)))
		}
	}
	if tc.Spec.TeamRef == nil || team == nil || team.Spec.ResourceLimits == nil {
		return allErrs, false
	}
	limits := team.Spec.ResourceLimits
	mt := tc.Spec.Workers.MachineTemplate
	replicas := tc.Spec.Workers.Replicas
	if isCreate && limits.MaxClusters != nil {
		existingCount := int32(0)
		for i := range tcList {
			if tcList[i].Name != tc.Name {
				existingCount++
			}
		}
		if existingCount+1 > *limits.MaxClusters {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec"),
				fmt.Sprintf("team %q already has %d cluster(s); team quota limits to %d", team.Name, existingCount, *limits.MaxClusters)))
		}
	}
	if isCreate && limits.MaxTotalNodes != nil {
		totalNodes := replicas
		for i := range tcList {
			if tcList[i].Name != tc.Name {
				totalNodes += tcList[i].Spec.Workers.Replicas
			}
		}
		if totalNodes > *limits.MaxTotalNodes {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "workers", "replicas"),
				fmt.Sprintf("total worker nodes (%d) would exceed team %q node quota (%d)", totalNodes, team.Name, *limits.MaxTotalNodes)))
		}
	}
	if limits.MaxNodesPerCluster != nil && replicas > *limits.MaxNodesPerCluster {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "workers", "replicas"),
			fmt.Sprintf("worker replicas (%d) exceeds team %q per-cluster node limit (%d)", replicas, team.Name, *limits.MaxNodesPerCluster)))
	}
	cpuOf := func(c *v1alpha1.TenantCluster) *resource.Quantity {
		return resource.NewQuantity(int64(c.Spec.Workers.MachineTemplate.CPU)*int64(c.Spec.Workers.Replicas), resource.DecimalSI)
	}
	loopSum := func(q resource.Quantity, n int32) *resource.Quantity {
		s := resource.NewQuantity(0, resource.BinarySI)
		for i := int32(0); i < n; i++ {
			s.Add(q)
		}
		return s
	}
	if isCreate && limits.MaxCPUCores != nil && !limits.MaxCPUCores.IsZero() {
		requestedCPU := resource.NewQuantity(int64(mt.CPU)*int64(replicas), resource.DecimalSI)
		currentCPU := resource.NewQuantity(0, resource.DecimalSI)
		for i := range tcList {
			if tcList[i].Name != tc.Name {
				currentCPU.Add(*cpuOf(&tcList[i]))
			}
		}
		totalCPU := currentCPU.DeepCopy()
		totalCPU.Add(*requestedCPU)
		if totalCPU.Cmp(*limits.MaxCPUCores) > 0 {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "workers"),
				fmt.Sprintf("total CPU (%s) would exceed team %q CPU quota (%s)", totalCPU.String(), team.Name, limits.MaxCPUCores.String())))
		}
	}
	memOf := func(c *v1alpha1.TenantCluster) *resource.Quantity {
		return loopSum(c.Spec.Workers.MachineTemplate.Memory, c.Spec.Workers.Replicas)
	}
	if isCreate && limits.MaxMemory != nil && !limits.MaxMemory.IsZero() {
		requestedMemory := memOf(tc)
		currentMemory := resource.NewQuantity(0, resource.BinarySI)
		for i := range tcList {
			if tcList[i].Name != tc.Name {
				for j := int32(0); j < tcList[i].Spec.Workers.Replicas; j++ {
					currentMemory.Add(tcList[i].Spec.Workers.MachineTemplate.Memory)
				}
			}
		}
		totalMemory := currentMemory.DeepCopy()
		totalMemory.Add(*requestedMemory)
		if totalMemory.Cmp(*limits.MaxMemory) > 0 {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "workers"),
				fmt.Sprintf("total memory (%s) would exceed team %q memory quota (%s)", totalMemory.String(), team.Name, limits.MaxMemory.String())))
		}
	}
	diskOf := func(c *v1alpha1.TenantCluster) *resource.Quantity {
		return loopSum(c.Spec.Workers.MachineTemplate.DiskSize, c.Spec.Workers.Replicas)
	}
	if isCreate && limits.MaxStorage != nil && !limits.MaxStorage.IsZero() {
		requestedStorage := diskOf(tc)
		currentStorage := resource.NewQuantity(0, resource.BinarySI)
		for i := range tcList {
			if tcList[i].Name != tc.Name {
				for j := int32(0); j < tcList[i].Spec.Workers.Replicas; j++ {
					currentStorage.Add(tcList[i].Spec.Workers.MachineTemplate.DiskSize)
				}
			}
		}
		totalStorage := currentStorage.DeepCopy()
		totalStorage.Add(*requestedStorage)
		if totalStorage.Cmp(*limits.MaxStorage) > 0 {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "workers"),
				fmt.Sprintf("total storage (%s) would exceed team %q storage quota (%s)", totalStorage.String(), team.Name, limits.MaxStorage.String())))
		}
	}
	return allErrs, false
}

func acRefKey(r *v1alpha1.ProviderReference) string {
	if r == nil {
		return "\x00"
	}
	ns := r.Namespace
	if ns == "" {
		ns = v1alpha1.DefaultProviderNamespace
	}
	return ns + "/" + r.Name
}

func acOracleEnv(req policy.ClusterRequest, tc, oldTC *v1alpha1.TenantCluster, team *v1alpha1.Team) field.ErrorList {
	var allErrs field.ErrorList
	if len(team.Spec.Environments) == 0 {
		return allErrs
	}
	envLabel := ""
	if tc.Labels != nil {
		envLabel = tc.Labels[v1alpha1.LabelEnvironment]
	}
	if envLabel == "" {
		if oldTC != nil && (oldTC.Labels == nil || oldTC.Labels[v1alpha1.LabelEnvironment] == "") {
			return allErrs
		}
		return append(allErrs, field.Required(field.NewPath("metadata", "labels").Key(v1alpha1.LabelEnvironment),
			fmt.Sprintf("team %q defines environments; TenantClusters must carry this label set to one of the team's env names", team.Name)))
	}
	var targetEnv *v1alpha1.EnvironmentSpec
	for i := range team.Spec.Environments {
		if team.Spec.Environments[i].Name == envLabel {
			targetEnv = &team.Spec.Environments[i]
			break
		}
	}
	if targetEnv == nil {
		if oldTC != nil && oldTC.Labels[v1alpha1.LabelEnvironment] == envLabel {
			return allErrs
		}
		names := make([]string, 0, len(team.Spec.Environments))
		for i := range team.Spec.Environments {
			names = append(names, team.Spec.Environments[i].Name)
		}
		return append(allErrs, field.NotSupported(field.NewPath("metadata", "labels").Key(v1alpha1.LabelEnvironment), envLabel, names))
	}
	if targetEnv.Limits == nil {
		return allErrs
	}
	tcList := req.Siblings
	sameEnvCount := int32(0)
	for i := range tcList {
		other := &tcList[i]
		if other.Name == tc.Name {
			continue
		}
		// The server's comparison: the label equals the environment exactly (case-sensitive).
		if other.Labels == nil || other.Labels[v1alpha1.LabelEnvironment] != envLabel {
			continue
		}
		sameEnvCount++
	}
	lim := targetEnv.Limits
	isCreate := oldTC == nil
	if isCreate && lim.MaxClusters != nil && *lim.MaxClusters > 0 && sameEnvCount+1 > *lim.MaxClusters {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec"),
			fmt.Sprintf("environment %q in team %q already has %d cluster(s); env quota limits to %d", envLabel, team.Name, sameEnvCount, *lim.MaxClusters)))
	}
	if lim.MaxClustersPerMember != nil && *lim.MaxClustersPerMember > 0 {
		p := field.NewPath("metadata", "annotations").Key(v1alpha1.AnnotationCreatorEmail)
		creator := ""
		if tc.Annotations != nil {
			creator = tc.Annotations[v1alpha1.AnnotationCreatorEmail]
		}
		oldCreator := ""
		if !isCreate && oldTC.Annotations != nil {
			oldCreator = oldTC.Annotations[v1alpha1.AnnotationCreatorEmail]
		}
		if creator == "" && isCreate {
			allErrs = append(allErrs, field.Required(p, fmt.Sprintf(
				"environment %q sets maxClustersPerMember; TenantClusters must carry the %s annotation (set automatically by butler-server; kubectl-direct creates must supply it explicitly)",
				envLabel, v1alpha1.AnnotationCreatorEmail)))
		} else if isCreate && !strings.EqualFold(creator, req.Username) {
			allErrs = append(allErrs, field.Invalid(p, creator, fmt.Sprintf(
				"%s must match the requesting identity %q; environment %q enforces per-member caps and cannot accept an annotation claiming a different user",
				v1alpha1.AnnotationCreatorEmail, req.Username, envLabel)))
		} else if !isCreate && creator != oldCreator {
			allErrs = append(allErrs, field.Forbidden(p, fmt.Sprintf("%s is immutable; cannot change from %q to %q", v1alpha1.AnnotationCreatorEmail, oldCreator, creator)))
		} else if isCreate {
			ownedByCreator := int32(0)
			for i := range tcList {
				other := &tcList[i]
				if other.Name == tc.Name {
					continue
				}
				if other.Labels == nil || other.Labels[v1alpha1.LabelEnvironment] != envLabel {
					continue
				}
				otherOwner := ""
				if other.Annotations != nil {
					otherOwner = other.Annotations[v1alpha1.AnnotationOwner]
					if otherOwner == "" {
						otherOwner = other.Annotations[v1alpha1.AnnotationCreatorEmail]
					}
				}
				if strings.EqualFold(otherOwner, creator) {
					ownedByCreator++
				}
			}
			if ownedByCreator+1 > *lim.MaxClustersPerMember {
				allErrs = append(allErrs, field.Forbidden(p, fmt.Sprintf(
					"user %q already owns %d cluster(s) in environment %q; env limits to %d per member", creator, ownedByCreator, envLabel, *lim.MaxClustersPerMember)))
			}
		}
	}
	return allErrs
}

// acOracleRestrictions is the contract's client-side version and addon restrictions.
func acOracleRestrictions(req policy.ClusterRequest, tc, oldTC *v1alpha1.TenantCluster, team *v1alpha1.Team) field.ErrorList {
	var errs field.ErrorList
	if team == nil || team.Spec.ResourceLimits == nil {
		return errs
	}
	lim := team.Spec.ResourceLimits
	v := tc.Spec.KubernetesVersion
	if len(lim.AllowedKubernetesVersions) > 0 && (oldTC == nil || oldTC.Spec.KubernetesVersion != v) && !policy.VersionAllowed(v, lim.AllowedKubernetesVersions) {
		e := field.NotSupported(field.NewPath("spec", "kubernetesVersion"), v, lim.AllowedKubernetesVersions)
		e.Detail += "; this is butler-toolkit's policy, not Butler's (rule team-allowed-versions)"
		errs = append(errs, e)
	}
	if len(lim.AllowedAddons) > 0 || len(lim.DeniedAddons) > 0 {
		for _, a := range req.Addons {
			name, _, _ := strings.Cut(strings.TrimSpace(a), "@")
			name = strings.TrimSpace(name)
			if name != "" && !policy.AddonAllowed(name, lim.AllowedAddons, lim.DeniedAddons) {
				// duplicates collapse in ToAggregate, as AdmitCluster reports each name once
				errs = append(errs, field.Forbidden(field.NewPath("spec", "addons"), fmt.Sprintf("addon %q is not allowed for team %q", name, team.Name)+"; this is butler-toolkit's policy, not Butler's (rule team-addons)"))
			}
		}
	}
	return errs
}
