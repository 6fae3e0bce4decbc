package policy_test

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// The ProviderConfig document's examples; each must validate.
func exProviderExamples() map[string]*v1alpha1.ProviderConfig {
	meta := func(name, ns string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: ns} }
	return map[string]*v1alpha1.ProviderConfig{
		"harvester": {ObjectMeta: meta("harvester-prod", "butler-system"), Spec: v1alpha1.ProviderConfigSpec{
			Provider:       "harvester",
			CredentialsRef: v1alpha1.SecretReference{Name: "harvester-credentials", Namespace: "butler-system"},
			Harvester:      &v1alpha1.HarvesterConfig{Endpoint: "https://harvester.example.com:6443", Namespace: "default", NetworkName: "default/vlan40-workloads"},
			Network: &v1alpha1.ProviderNetwork{Mode: "ipam", PoolRefs: []v1alpha1.PoolRef{{Name: "prod-ip-pool", Priority: exI32(0)}, {Name: "overflow-ip-pool", Priority: exI32(10)}},
				LoadBalancer:   &v1alpha1.LoadBalancerConfig{DefaultPoolSize: exI32(8), AllocationMode: "static"},
				QuotaPerTenant: &v1alpha1.QuotaPerTenant{MaxNodeIPs: exI32(20), MaxLoadBalancerIPs: exI32(8)}},
			Limits: &v1alpha1.ProviderLimits{MaxClustersPerTeam: exI32(5), MaxNodesPerTeam: exI32(50)},
		}},
		"nutanix": {ObjectMeta: meta("nutanix-datacenter", "butler-system"), Spec: v1alpha1.ProviderConfigSpec{
			Provider:       "nutanix",
			CredentialsRef: v1alpha1.SecretReference{Name: "nutanix-credentials"},
			Nutanix: &v1alpha1.NutanixConfig{Endpoint: "https://prism.example.com", Port: exI32(9440),
				ClusterUUID: "a1b2c3d4-e5f6-7890-abcd-ef1234567890", SubnetUUID: "f0e1d2c3-b4a5-6789-0fed-cba987654321"},
			Network: &v1alpha1.ProviderNetwork{Mode: "ipam", PoolRefs: []v1alpha1.PoolRef{{Name: "nutanix-node-pool"}}},
		}},
		"aws": {ObjectMeta: meta("aws-us-east", "butler-system"), Spec: v1alpha1.ProviderConfigSpec{
			Provider:       "aws",
			CredentialsRef: v1alpha1.SecretReference{Name: "aws-credentials"},
			AWS:            &v1alpha1.AWSConfig{Region: "us-east-1", VPCID: "vpc-0abc123def456789"},
			Limits:         &v1alpha1.ProviderLimits{MaxClustersPerTeam: exI32(10), MaxNodesPerTeam: exI32(100)},
		}},
		"azure team-scoped": {ObjectMeta: meta("azure-platform-team", "team-platform-team"), Spec: v1alpha1.ProviderConfigSpec{
			Provider:       "azure",
			CredentialsRef: v1alpha1.SecretReference{Name: "azure-credentials", Namespace: "team-platform-team"},
			Azure:          &v1alpha1.AzureConfig{SubscriptionID: "12345678-abcd-efgh-ijkl-1234567890ab", ResourceGroup: "platform-team-rg", Location: "eastus"},
			Scope:          &v1alpha1.ProviderScope{Type: "team", TeamRef: &v1alpha1.LocalObjectReference{Name: "platform-team"}},
		}},
		"proxmox elastic": {ObjectMeta: meta("proxmox-elastic", "butler-system"), Spec: v1alpha1.ProviderConfigSpec{
			Provider:       "proxmox",
			CredentialsRef: v1alpha1.SecretReference{Name: "proxmox-credentials"},
			Proxmox: &v1alpha1.ProxmoxConfig{Endpoint: "https://proxmox.example.com:8006", Nodes: []string{"pve-node-01", "pve-node-02"},
				Storage: "local-lvm", TemplateID: exI32(9000), VMIDRange: &v1alpha1.VMIDRange{Start: 200, End: 999}},
			Network: &v1alpha1.ProviderNetwork{Mode: "ipam", PoolRefs: []v1alpha1.PoolRef{{Name: "proxmox-main-pool", Priority: exI32(10)}},
				LoadBalancer: &v1alpha1.LoadBalancerConfig{DefaultPoolSize: exI32(16), AllocationMode: "elastic", InitialPoolSize: exI32(2), GrowthIncrement: exI32(4)}},
		}},
		"gcp": {ObjectMeta: meta("gcp", "butler-system"), Spec: v1alpha1.ProviderConfigSpec{
			Provider:       "gcp",
			CredentialsRef: v1alpha1.SecretReference{Name: "gcp-credentials"},
			GCP:            &v1alpha1.GCPConfig{ProjectID: "my-project", Region: "us-central1"},
			Network:        &v1alpha1.ProviderNetwork{Mode: "cloud"},
		}},
	}
}

func TestValidateProviderConfigDocumentExamples(t *testing.T) {
	for name, pc := range exProviderExamples() {
		if errs := policy.ValidateProviderConfig(pc); len(errs) != 0 {
			t.Errorf("%s: %v", name, errs.ToAggregate())
		}
	}
	if errs := policy.ValidateProviderConfig(nil); errs != nil {
		t.Errorf("nil: %v", errs)
	}
}

func TestValidateProviderConfig(t *testing.T) {
	ex := func(name string, f func(*v1alpha1.ProviderConfigSpec)) *v1alpha1.ProviderConfig {
		pc := exProviderExamples()[name]
		f(&pc.Spec)
		return pc
	}
	tests := []struct {
		name string
		pc   *v1alpha1.ProviderConfig
		want string // the aggregate as the server prints it
	}{
		// Webhook rules, with its messages.
		{"azure section missing", ex("azure team-scoped", func(s *v1alpha1.ProviderConfigSpec) { s.Azure = nil }),
			`spec.azure: Required value: azure configuration is required when provider is "azure"`},
		{"azure fields missing", ex("azure team-scoped", func(s *v1alpha1.ProviderConfigSpec) { s.Azure = &v1alpha1.AzureConfig{} }),
			`[spec.azure.subscriptionID: Required value: subscriptionID is required for Azure provider, spec.azure.resourceGroup: Required value: resourceGroup is required for Azure provider]`},
		{"aws section missing", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.AWS = nil }),
			`spec.aws: Required value: aws configuration is required when provider is "aws"`},
		{"aws region missing", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.AWS.Region = "" }),
			`spec.aws.region: Required value: region is required for AWS provider`},
		{"gcp section missing", ex("gcp", func(s *v1alpha1.ProviderConfigSpec) { s.GCP = nil }),
			`spec.gcp: Required value: gcp configuration is required when provider is "gcp"`},
		{"gcp fields missing", ex("gcp", func(s *v1alpha1.ProviderConfigSpec) { s.GCP = &v1alpha1.GCPConfig{} }),
			`[spec.gcp.projectID: Required value: projectID is required for GCP provider, spec.gcp.region: Required value: region is required for GCP provider]`},
		{"on-prem section missing too", ex("harvester", func(s *v1alpha1.ProviderConfigSpec) { s.Harvester = nil }),
			`spec.harvester: Required value: harvester configuration is required when provider is "harvester"`},
		{"proxmox section missing", ex("proxmox elastic", func(s *v1alpha1.ProviderConfigSpec) { s.Proxmox = nil }),
			`spec.proxmox: Required value: proxmox configuration is required when provider is "proxmox"`},
		{"other sections are not required", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.GCP = &v1alpha1.GCPConfig{ProjectID: "p", Region: "r"} }), ``},
		{"team scope without teamRef", ex("azure team-scoped", func(s *v1alpha1.ProviderConfigSpec) { s.Scope.TeamRef = nil }),
			`spec.scope.teamRef: Required value: teamRef is required when scope type is "team"`},
		{"platform scope without teamRef", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.Scope = &v1alpha1.ProviderScope{Type: "platform"} }), ``},
		{"ipam without pools", ex("harvester", func(s *v1alpha1.ProviderConfigSpec) { s.Network.PoolRefs = nil }),
			`spec.network.poolRefs: Required value: at least one poolRef is required when network mode is "ipam"`},
		{"ipam on a cloud provider", ex("gcp", func(s *v1alpha1.ProviderConfigSpec) {
			s.Network = &v1alpha1.ProviderNetwork{Mode: "ipam", PoolRefs: []v1alpha1.PoolRef{{Name: "p"}}}
		}), `spec.network.mode: Forbidden: IPAM mode is not supported for cloud providers`},
		{"ipam on a cloud provider without pools", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.Network = &v1alpha1.ProviderNetwork{Mode: "ipam"} }),
			`[spec.network.poolRefs: Required value: at least one poolRef is required when network mode is "ipam", spec.network.mode: Forbidden: IPAM mode is not supported for cloud providers]`},
		{"cloud mode on-prem is not required to be ipam", ex("nutanix", func(s *v1alpha1.ProviderConfigSpec) { s.Network = nil }), ``},

		// Schema rules.
		{"provider missing", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.Provider = "" }), `spec.provider: Required value`},
		{"provider unknown", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.Provider = "vsphere" }),
			`spec.provider: Unsupported value: "vsphere": supported values: "harvester", "nutanix", "proxmox", "azure", "aws", "gcp", "local"`},
		{"provider case matters", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.Provider = "AWS" }),
			`spec.provider: Unsupported value: "AWS": supported values: "harvester", "nutanix", "proxmox", "azure", "aws", "gcp", "local"`},
		// The CRD's CEL rule, with its message: every provider but local names its Secret.
		{"credentialsRef name", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.CredentialsRef.Name = "" }),
			`spec: Invalid value: "object": credentialsRef with a non-empty name is required for all providers except local`},
		{"credentialsRef without name but a namespace", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.CredentialsRef.Name = ""; s.CredentialsRef.Namespace = "x" }),
			`[spec: Invalid value: "object": credentialsRef with a non-empty name is required for all providers except local, spec.credentialsRef.name: Required value]`},
		{"local needs no credentialsRef", &v1alpha1.ProviderConfig{Spec: v1alpha1.ProviderConfigSpec{Provider: "local"}}, ``},
		{"local with a kind node image", &v1alpha1.ProviderConfig{Spec: v1alpha1.ProviderConfigSpec{Provider: "local",
			Local: &v1alpha1.LocalConfig{KindNodeImage: "kindest/node:v1.31.0"}}}, ``},
		{"local with a reference that names nothing", &v1alpha1.ProviderConfig{Spec: v1alpha1.ProviderConfigSpec{Provider: "local",
			CredentialsRef: v1alpha1.SecretReference{Namespace: "x"}}}, `spec.credentialsRef.name: Required value`},
		{"harvester networkName missing", ex("harvester", func(s *v1alpha1.ProviderConfigSpec) { s.Harvester.NetworkName = "" }), `spec.harvester.networkName: Required value`},
		{"harvester networkName without namespace", ex("harvester", func(s *v1alpha1.ProviderConfigSpec) { s.Harvester.NetworkName = "vlan40" }),
			`spec.harvester.networkName: Invalid value: "vlan40": spec.harvester.networkName in body should match '^[a-z0-9-]+/[a-z0-9-]+$'`},
		{"harvester networkName upper case", ex("harvester", func(s *v1alpha1.ProviderConfigSpec) { s.Harvester.NetworkName = "Default/vlan40" }),
			`spec.harvester.networkName: Invalid value: "Default/vlan40": spec.harvester.networkName in body should match '^[a-z0-9-]+/[a-z0-9-]+$'`},
		{"nutanix http endpoint", ex("nutanix", func(s *v1alpha1.ProviderConfigSpec) { s.Nutanix.Endpoint = "http://prism.example.com" }),
			`spec.nutanix.endpoint: Invalid value: "http://prism.example.com": must be an https:// URL`},
		{"nutanix endpoint without host", ex("nutanix", func(s *v1alpha1.ProviderConfigSpec) { s.Nutanix.Endpoint = "https://" }),
			`spec.nutanix.endpoint: Invalid value: "https://": must be an https:// URL`},
		{"nutanix required fields", ex("nutanix", func(s *v1alpha1.ProviderConfigSpec) { *s.Nutanix = v1alpha1.NutanixConfig{} }),
			`[spec.nutanix.endpoint: Required value, spec.nutanix.clusterUUID: Required value, spec.nutanix.subnetUUID: Required value]`},
		{"proxmox bare host endpoint", ex("proxmox elastic", func(s *v1alpha1.ProviderConfigSpec) { s.Proxmox.Endpoint = "proxmox.example.com:8006" }),
			`spec.proxmox.endpoint: Invalid value: "proxmox.example.com:8006": must be an https:// URL`},
		{"proxmox no nodes", ex("proxmox elastic", func(s *v1alpha1.ProviderConfigSpec) { s.Proxmox.Nodes = nil }),
			`spec.proxmox.nodes: Required value: at least one node is required`},
		{"proxmox storage", ex("proxmox elastic", func(s *v1alpha1.ProviderConfigSpec) { s.Proxmox.Storage = "" }), `spec.proxmox.storage: Required value`},
		{"vmid range at the bound", ex("proxmox elastic", func(s *v1alpha1.ProviderConfigSpec) { s.Proxmox.VMIDRange = &v1alpha1.VMIDRange{Start: 100, End: 100} }), ``},
		{"vmid range below the bound", ex("proxmox elastic", func(s *v1alpha1.ProviderConfigSpec) { s.Proxmox.VMIDRange = &v1alpha1.VMIDRange{Start: 99, End: 150} }),
			`spec.proxmox.vmidRange.start: Invalid value: 99: spec.proxmox.vmidRange.start in body should be greater than or equal to 100`},
		{"vmid range reversed", ex("proxmox elastic", func(s *v1alpha1.ProviderConfigSpec) { s.Proxmox.VMIDRange = &v1alpha1.VMIDRange{Start: 500, End: 499} }),
			`spec.proxmox.vmidRange.end: Invalid value: 499: must be greater than or equal to start (500)`},
		{"vmid range unset bounds", ex("proxmox elastic", func(s *v1alpha1.ProviderConfigSpec) { s.Proxmox.VMIDRange = &v1alpha1.VMIDRange{} }),
			`[spec.proxmox.vmidRange.start: Invalid value: 0: spec.proxmox.vmidRange.start in body should be greater than or equal to 100, spec.proxmox.vmidRange.end: Invalid value: 0: spec.proxmox.vmidRange.end in body should be greater than or equal to 100]`},
		{"scope type unknown", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.Scope = &v1alpha1.ProviderScope{Type: "global"} }),
			`spec.scope.type: Unsupported value: "global": supported values: "platform", "team"`},
		{"team scope with empty teamRef name", ex("azure team-scoped", func(s *v1alpha1.ProviderConfigSpec) { s.Scope.TeamRef.Name = "" }),
			`spec.scope.teamRef.name: Required value`},
		{"network mode unknown", ex("aws", func(s *v1alpha1.ProviderConfigSpec) { s.Network = &v1alpha1.ProviderNetwork{Mode: "dhcp"} }),
			`spec.network.mode: Unsupported value: "dhcp": supported values: "ipam", "cloud"`},
		{"pool ref without name", ex("harvester", func(s *v1alpha1.ProviderConfigSpec) { s.Network.PoolRefs[1].Name = "" }),
			`spec.network.poolRefs[1].name: Required value`},
		{"load balancer sizes at 1", ex("proxmox elastic", func(s *v1alpha1.ProviderConfigSpec) {
			s.Network.LoadBalancer = &v1alpha1.LoadBalancerConfig{DefaultPoolSize: exI32(1), InitialPoolSize: exI32(1), GrowthIncrement: exI32(1)}
		}), ``},
		{"load balancer sizes at 0", ex("proxmox elastic", func(s *v1alpha1.ProviderConfigSpec) {
			s.Network.LoadBalancer = &v1alpha1.LoadBalancerConfig{DefaultPoolSize: exI32(0), AllocationMode: "burst", InitialPoolSize: exI32(0), GrowthIncrement: exI32(-1)}
		}), `[spec.network.loadBalancer.defaultPoolSize: Invalid value: 0: spec.network.loadBalancer.defaultPoolSize in body should be greater than or equal to 1, ` +
			`spec.network.loadBalancer.allocationMode: Unsupported value: "burst": supported values: "static", "elastic", ` +
			`spec.network.loadBalancer.initialPoolSize: Invalid value: 0: spec.network.loadBalancer.initialPoolSize in body should be greater than or equal to 1, ` +
			`spec.network.loadBalancer.growthIncrement: Invalid value: -1: spec.network.loadBalancer.growthIncrement in body should be greater than or equal to 1]`},
		{"quota per tenant at 0", ex("harvester", func(s *v1alpha1.ProviderConfigSpec) {
			s.Network.QuotaPerTenant = &v1alpha1.QuotaPerTenant{MaxNodeIPs: exI32(0), MaxLoadBalancerIPs: exI32(1)}
		}), `spec.network.quotaPerTenant.maxNodeIPs: Invalid value: 0: spec.network.quotaPerTenant.maxNodeIPs in body should be greater than or equal to 1`},
		{"limits at 0", ex("aws", func(s *v1alpha1.ProviderConfigSpec) {
			s.Limits = &v1alpha1.ProviderLimits{MaxClustersPerTeam: exI32(0), MaxNodesPerTeam: exI32(0)}
		}), `[spec.limits.maxClustersPerTeam: Invalid value: 0: spec.limits.maxClustersPerTeam in body should be greater than or equal to 1, spec.limits.maxNodesPerTeam: Invalid value: 0: spec.limits.maxNodesPerTeam in body should be greater than or equal to 1]`},
		{"limits at 1", ex("aws", func(s *v1alpha1.ProviderConfigSpec) {
			s.Limits = &v1alpha1.ProviderLimits{MaxClustersPerTeam: exI32(1), MaxNodesPerTeam: exI32(1)}
		}), ``},

		// Webhook errors come first, then schema errors.
		{"webhook then schema", ex("aws", func(s *v1alpha1.ProviderConfigSpec) {
			s.AWS.Region = ""
			s.CredentialsRef.Name = ""
		}), `[spec.aws.region: Required value: region is required for AWS provider, spec: Invalid value: "object": credentialsRef with a non-empty name is required for all providers except local]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agg := policy.ValidateProviderConfig(tt.pc).ToAggregate()
			got := ""
			if agg != nil {
				got = agg.Error()
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestRequiredCredentialKeys(t *testing.T) {
	want := map[string][][]string{
		"harvester": {{"kubeconfig"}},
		"nutanix":   {{"username", "password"}},
		"proxmox":   {{"username", "password"}, {"token"}},
		"azure":     {{"tenantID", "clientID", "clientSecret", "subscriptionID"}},
		"aws":       {{"accessKeyID", "secretAccessKey"}},
		"gcp":       {{"serviceAccountKey"}},
		"vsphere":   nil,
		"":          nil,
	}
	for p, w := range want {
		if got := policy.RequiredCredentialKeys(p); !reflect.DeepEqual(got, w) {
			t.Errorf("%q: %v, want %v", p, got, w)
		}
	}
	// The result is the caller's to change.
	policy.RequiredCredentialKeys("aws")[0][0] = "x"
	if policy.RequiredCredentialKeys("aws")[0][0] != "accessKeyID" {
		t.Error("RequiredCredentialKeys shares its table")
	}
}

func TestValidateCredentials(t *testing.T) {
	tests := []struct {
		provider string
		keys     []string
		want     string
	}{
		{"harvester", []string{"kubeconfig"}, ""},
		{"harvester", nil, `credentials for provider "harvester" are missing key "kubeconfig"`},
		{"nutanix", []string{"username", "password", "extra"}, ""},
		{"nutanix", []string{"username"}, `credentials for provider "nutanix" are missing key "password"`},
		{"nutanix", []string{"Username", "Password"}, `credentials for provider "nutanix" are missing keys "username", "password"`},
		{"proxmox", []string{"username", "password"}, ""},
		{"proxmox", []string{"token"}, ""},
		{"proxmox", []string{"username"}, `credentials for provider "proxmox" are missing key "password" (or provide "token" instead)`},
		{"proxmox", nil, `credentials for provider "proxmox" are missing key "token" (or provide "username" and "password" instead)`},
		{"azure", []string{"tenantID", "clientID", "subscriptionID"}, `credentials for provider "azure" are missing key "clientSecret"`},
		{"aws", []string{"accessKeyID", "secretAccessKey"}, ""},
		{"aws", []string{"secretAccessKey"}, `credentials for provider "aws" are missing key "accessKeyID"`},
		{"gcp", []string{"key.json"}, `credentials for provider "gcp" are missing key "serviceAccountKey"`},
		{"vsphere", []string{"username"}, `unknown provider "vsphere": supported values: "harvester", "nutanix", "proxmox", "azure", "aws", "gcp", "local"`},
	}
	for _, tt := range tests {
		err := policy.ValidateCredentials(tt.provider, tt.keys)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("ValidateCredentials(%q, %q) = %q, want %q", tt.provider, tt.keys, got, tt.want)
		}
	}
}

func TestProviderDeleteGuard(t *testing.T) {
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "harvester-prod", Namespace: "butler-system"}}
	tc := func(ns, name, ref, refNS string) v1alpha1.TenantCluster {
		c := v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
		if ref != "" {
			c.Spec.ProviderConfigRef = &v1alpha1.ProviderReference{Name: ref, Namespace: refNS}
		}
		return c
	}
	const msg = `metadata.name: Forbidden: cannot delete ProviderConfig "harvester-prod": TenantCluster %s still references it`
	tests := []struct {
		name     string
		pc       *v1alpha1.ProviderConfig
		clusters []v1alpha1.TenantCluster
		want     string
	}{
		{"no clusters", pc, nil, ""},
		{"no ref", pc, []v1alpha1.TenantCluster{tc("payments", "a", "", "")}, ""},
		{"other provider", pc, []v1alpha1.TenantCluster{tc("payments", "a", "nutanix", "")}, ""},
		{"same name, other namespace", pc, []v1alpha1.TenantCluster{tc("payments", "a", "harvester-prod", "team-x")}, ""},
		{"empty ref namespace is butler-system", pc, []v1alpha1.TenantCluster{tc("payments", "api", "harvester-prod", "")}, "payments/api"},
		{"explicit namespace", pc, []v1alpha1.TenantCluster{tc("ops", "db", "harvester-prod", "butler-system")}, "ops/db"},
		{"first match wins", pc, []v1alpha1.TenantCluster{tc("a", "x", "other", ""), tc("b", "y", "harvester-prod", ""), tc("c", "z", "harvester-prod", "")}, "b/y"},
		{"team-scoped provider", &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "harvester-prod", Namespace: "payments"}},
			[]v1alpha1.TenantCluster{tc("payments", "a", "harvester-prod", ""), tc("payments", "b", "harvester-prod", "payments")}, "payments/b"},
		{"provider without namespace is in butler-system", &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "harvester-prod"}},
			[]v1alpha1.TenantCluster{tc("payments", "a", "harvester-prod", "")}, "payments/a"},
		{"nil provider", nil, []v1alpha1.TenantCluster{tc("payments", "a", "harvester-prod", "")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := policy.ProviderDeleteGuard(tt.pc, tt.clusters)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || err.Error() != strings.Replace(msg, "%s", tt.want, 1)):
				t.Errorf("got %v, want %s", err, strings.Replace(msg, "%s", tt.want, 1))
			}
		})
	}
}
