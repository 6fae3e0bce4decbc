package policy

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ValidateProviderConfig checks a ProviderConfig before it is sent: the webhook's rules
// with its messages and order (docs/rules.md §9.1), then the schema rules of the ProviderConfig
// document. Every failure is collected; render with ToAggregate() as the server does.
func ValidateProviderConfig(pc *v1alpha1.ProviderConfig) field.ErrorList {
	if pc == nil {
		return nil
	}
	return append(ValidateProviderConfigWebhook(pc), ValidateProviderConfigSchema(pc)...)
}

// ValidateProviderConfigWebhook is the ProviderConfig webhook's create/update rules, except
// that the provider section is required for every provider (docs/rules.md §9.1), not only the cloud
// ones.
func ValidateProviderConfigWebhook(pc *v1alpha1.ProviderConfig) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	p := pc.Spec.Provider

	present := map[string]bool{
		v1alpha1.ProviderHarvester: pc.Spec.Harvester != nil,
		v1alpha1.ProviderNutanix:   pc.Spec.Nutanix != nil,
		v1alpha1.ProviderProxmox:   pc.Spec.Proxmox != nil,
		v1alpha1.ProviderAzure:     pc.Spec.Azure != nil,
		v1alpha1.ProviderAWS:       pc.Spec.AWS != nil,
		v1alpha1.ProviderGCP:       pc.Spec.GCP != nil,
	}
	if ok, known := present[p]; known && !ok {
		errs = append(errs, field.Required(spec.Child(p), fmt.Sprintf("%s configuration is required when provider is %q", p, p)))
	}
	switch {
	case p == v1alpha1.ProviderAzure && pc.Spec.Azure != nil:
		if pc.Spec.Azure.SubscriptionID == "" {
			errs = append(errs, field.Required(spec.Child("azure", "subscriptionID"), "subscriptionID is required for Azure provider"))
		}
		if pc.Spec.Azure.ResourceGroup == "" {
			errs = append(errs, field.Required(spec.Child("azure", "resourceGroup"), "resourceGroup is required for Azure provider"))
		}
	case p == v1alpha1.ProviderAWS && pc.Spec.AWS != nil:
		if pc.Spec.AWS.Region == "" {
			errs = append(errs, field.Required(spec.Child("aws", "region"), "region is required for AWS provider"))
		}
	case p == v1alpha1.ProviderGCP && pc.Spec.GCP != nil:
		if pc.Spec.GCP.ProjectID == "" {
			errs = append(errs, field.Required(spec.Child("gcp", "projectID"), "projectID is required for GCP provider"))
		}
		if pc.Spec.GCP.Region == "" {
			errs = append(errs, field.Required(spec.Child("gcp", "region"), "region is required for GCP provider"))
		}
	}

	if s := pc.Spec.Scope; s != nil && s.Type == v1alpha1.ScopeTeam && s.TeamRef == nil {
		errs = append(errs, field.Required(spec.Child("scope", "teamRef"), `teamRef is required when scope type is "team"`))
	}

	if n := pc.Spec.Network; n != nil && n.Mode == v1alpha1.NetworkModeIPAM {
		if len(n.PoolRefs) == 0 {
			errs = append(errs, field.Required(spec.Child("network", "poolRefs"), `at least one poolRef is required when network mode is "ipam"`))
		}
		if isCloudProvider(p) {
			errs = append(errs, field.Forbidden(spec.Child("network", "mode"), "IPAM mode is not supported for cloud providers"))
		}
	}
	return errs
}

func isCloudProvider(p string) bool {
	return p == v1alpha1.ProviderAzure || p == v1alpha1.ProviderAWS || p == v1alpha1.ProviderGCP
}

var harvesterNetworkName = regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9-]+$`)

// ValidateProviderConfigSchema is the CRD schema and document rules, in spec field order.
// Where the CRD enforces a rule, the message is the API server's ("<path> in body should
// ..."); the https rule is stricter than the CRD (^https?://) because the document demands it.
func ValidateProviderConfigSchema(pc *v1alpha1.ProviderConfig) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	s := &pc.Spec

	switch {
	case s.Provider == "":
		errs = append(errs, field.Required(spec.Child("provider"), ""))
	case !slices.Contains(v1alpha1.ProviderTypes, s.Provider):
		errs = append(errs, field.NotSupported(spec.Child("provider"), s.Provider, v1alpha1.ProviderTypes))
	}
	// The CRD's rule: every provider but local names its credentials Secret; a reference
	// that is written must name one.
	if err := s.ValidateCredentialsRef(spec); err != nil {
		errs = append(errs, err)
	}
	if s.CredentialsRef != (v1alpha1.SecretReference{}) && s.CredentialsRef.Name == "" {
		errs = append(errs, field.Required(spec.Child("credentialsRef", "name"), ""))
	}

	if h := s.Harvester; h != nil {
		p := spec.Child("harvester", "networkName")
		switch {
		case h.NetworkName == "":
			errs = append(errs, field.Required(p, ""))
		case !harvesterNetworkName.MatchString(h.NetworkName):
			errs = append(errs, field.Invalid(p, h.NetworkName, fmt.Sprintf("%s in body should match '%s'", p, harvesterNetworkName)))
		}
	}
	if n := s.Nutanix; n != nil {
		errs = append(errs, pcHTTPS(spec.Child("nutanix", "endpoint"), n.Endpoint)...)
		errs = append(errs, pcRequired(spec.Child("nutanix", "clusterUUID"), n.ClusterUUID)...)
		errs = append(errs, pcRequired(spec.Child("nutanix", "subnetUUID"), n.SubnetUUID)...)
	}
	if x := s.Proxmox; x != nil {
		px := spec.Child("proxmox")
		errs = append(errs, pcHTTPS(px.Child("endpoint"), x.Endpoint)...)
		if len(x.Nodes) == 0 {
			errs = append(errs, field.Required(px.Child("nodes"), "at least one node is required"))
		}
		errs = append(errs, pcRequired(px.Child("storage"), x.Storage)...)
		if r := x.VMIDRange; r != nil {
			rp := px.Child("vmidRange")
			errs = append(errs, pcMinimum(rp.Child("start"), &r.Start, 100)...)
			errs = append(errs, pcMinimum(rp.Child("end"), &r.End, 100)...)
			if r.Start > r.End {
				errs = append(errs, field.Invalid(rp.Child("end"), int64(r.End), fmt.Sprintf("must be greater than or equal to start (%d)", r.Start)))
			}
		}
	}

	if sc := s.Scope; sc != nil {
		sp := spec.Child("scope")
		errs = append(errs, pcEnum(sp.Child("type"), sc.Type, v1alpha1.ScopePlatform, v1alpha1.ScopeTeam)...)
		if sc.TeamRef != nil {
			errs = append(errs, pcRequired(sp.Child("teamRef", "name"), sc.TeamRef.Name)...)
		}
	}

	if n := s.Network; n != nil {
		np := spec.Child("network")
		errs = append(errs, pcEnum(np.Child("mode"), n.Mode, v1alpha1.NetworkModeIPAM, v1alpha1.NetworkModeCloud)...)
		for i, r := range n.PoolRefs {
			errs = append(errs, pcRequired(np.Child("poolRefs").Index(i).Child("name"), r.Name)...)
		}
		if lb := n.LoadBalancer; lb != nil {
			lp := np.Child("loadBalancer")
			errs = append(errs, pcMinimum(lp.Child("defaultPoolSize"), lb.DefaultPoolSize, 1)...)
			errs = append(errs, pcEnum(lp.Child("allocationMode"), lb.AllocationMode, "static", "elastic")...)
			errs = append(errs, pcMinimum(lp.Child("initialPoolSize"), lb.InitialPoolSize, 1)...)
			errs = append(errs, pcMinimum(lp.Child("growthIncrement"), lb.GrowthIncrement, 1)...)
		}
		if q := n.QuotaPerTenant; q != nil {
			qp := np.Child("quotaPerTenant")
			errs = append(errs, pcMinimum(qp.Child("maxNodeIPs"), q.MaxNodeIPs, 1)...)
			errs = append(errs, pcMinimum(qp.Child("maxLoadBalancerIPs"), q.MaxLoadBalancerIPs, 1)...)
		}
	}

	if l := s.Limits; l != nil {
		lp := spec.Child("limits")
		errs = append(errs, pcMinimum(lp.Child("maxClustersPerTeam"), l.MaxClustersPerTeam, 1)...)
		errs = append(errs, pcMinimum(lp.Child("maxNodesPerTeam"), l.MaxNodesPerTeam, 1)...)
	}
	return errs
}

func pcRequired(p *field.Path, v string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return nil
}

func pcMinimum(p *field.Path, v *int32, least int32) field.ErrorList {
	if v == nil || *v >= least {
		return nil
	}
	return field.ErrorList{field.Invalid(p, int64(*v), fmt.Sprintf("%s in body should be greater than or equal to %d", p, least))}
}

// pcEnum accepts "" (the CRD default applies) or one of values.
func pcEnum(p *field.Path, v string, values ...string) field.ErrorList {
	if v == "" || slices.Contains(values, v) {
		return nil
	}
	return field.ErrorList{field.NotSupported(p, v, values)}
}

func pcHTTPS(p *field.Path, v string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if u, err := url.Parse(v); err != nil || u.Scheme != "https" || u.Host == "" {
		return field.ErrorList{field.Invalid(p, v, "must be an https:// URL")}
	}
	return nil
}

// credentialKeys are the Secret keys the ProviderConfig document lists per provider; any one
// set satisfies.
var credentialKeys = map[string][][]string{
	v1alpha1.ProviderHarvester: {{"kubeconfig"}},
	v1alpha1.ProviderNutanix:   {{"username", "password"}},
	v1alpha1.ProviderProxmox:   {{"username", "password"}, {"token"}},
	v1alpha1.ProviderAzure:     {{"tenantID", "clientID", "clientSecret", "subscriptionID"}},
	v1alpha1.ProviderAWS:       {{"accessKeyID", "secretAccessKey"}},
	v1alpha1.ProviderGCP:       {{"serviceAccountKey"}},
}

// RequiredCredentialKeys returns the alternative key sets a provider's credentials Secret
// may hold (nil for an unknown provider). The result is a copy.
func RequiredCredentialKeys(provider string) [][]string {
	alts := credentialKeys[provider]
	if alts == nil {
		return nil
	}
	out := make([][]string, len(alts))
	for i, a := range alts {
		out[i] = slices.Clone(a)
	}
	return out
}

// ValidateCredentials checks that keys (the Secret's key names, never its values) satisfy
// one of the provider's key sets. The error names the provider and the missing keys of the
// closest set, and any other accepted set.
func ValidateCredentials(provider string, keys []string) error {
	alts := credentialKeys[provider]
	if alts == nil {
		return fmt.Errorf("unknown provider %q: supported values: %s", provider, credQuoteJoin(v1alpha1.ProviderTypes, ", "))
	}
	have := map[string]bool{}
	for _, k := range keys {
		have[k] = true
	}
	best := -1
	var bestMissing []string
	for i, set := range alts {
		var missing []string
		for _, k := range set {
			if !have[k] {
				missing = append(missing, k)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		if best < 0 || len(missing) < len(bestMissing) {
			best, bestMissing = i, missing
		}
	}
	noun := "key"
	if len(bestMissing) > 1 {
		noun = "keys"
	}
	msg := fmt.Sprintf("credentials for provider %q are missing %s %s", provider, noun, credQuoteJoin(bestMissing, ", "))
	var others []string
	for i, set := range alts {
		if i != best {
			others = append(others, credQuoteJoin(set, " and "))
		}
	}
	if len(others) > 0 {
		msg += fmt.Sprintf(" (or provide %s instead)", strings.Join(others, ", or "))
	}
	return errors.New(msg)
}

func credQuoteJoin(items []string, sep string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, sep)
}

// ProviderDeleteGuard refuses deleting pc while a TenantCluster in any namespace references
// it (an empty ref namespace means butler-system), like the webhook: the first match in the
// given order is reported. A pc without a namespace is taken to be in butler-system.
func ProviderDeleteGuard(pc *v1alpha1.ProviderConfig, clusters []v1alpha1.TenantCluster) *field.Error {
	if pc == nil {
		return nil
	}
	pcNS := pc.Namespace
	if pcNS == "" {
		pcNS = v1alpha1.DefaultProviderNamespace
	}
	for i := range clusters {
		tc := &clusters[i]
		ref := tc.Spec.ProviderConfigRef
		if ref == nil || ref.Name != pc.Name {
			continue
		}
		ns := ref.Namespace
		if ns == "" {
			ns = v1alpha1.DefaultProviderNamespace
		}
		if ns == pcNS {
			return field.Forbidden(field.NewPath("metadata", "name"),
				fmt.Sprintf("cannot delete ProviderConfig %q: TenantCluster %s/%s still references it", pc.Name, tc.Namespace, tc.Name))
		}
	}
	return nil
}
