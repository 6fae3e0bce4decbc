package create

import (
	"strconv"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	v1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Provider types, for the table.
var (
	harvester = []string{v1.ProviderHarvester}
	nutanix   = []string{v1.ProviderNutanix}
	proxmox   = []string{v1.ProviderProxmox}
	azure     = []string{v1.ProviderAzure}
	aws       = []string{v1.ProviderAWS}
	gcp       = []string{v1.ProviderGCP}
)

// settings is the table of the ProviderConfig's settings: the spec's network and limits
// (every provider), then each provider's section. Flags, help, the check that a flag goes
// with --provider, the refusal next to -f and building the spec all come from it. Fresh
// rows per command, since each holds its value.
func settings() []*setting { return append(specSettings(), sectionSettings()...) }

// specSettings are the spec's network and limits, for every provider type.
func specSettings() []*setting {
	return []*setting{
		str("network-mode", nil, "Addressing: cloud (the provider's own, the default) or ipam (Butler's pools)", func(s *spec, v string) { network(s).Mode = v }),
		pools("pool", "IPAM pool as NAME[:PRIORITY], lower priority tried first (repeatable; implies --network-mode ipam)"),
		str("subnet", nil, "Node subnet CIDR", func(s *spec, v string) { network(s).Subnet = v }),
		str("gateway", nil, "Default gateway", func(s *spec, v string) { network(s).Gateway = v }),
		strs("dns-server", nil, "DNS server (repeatable)", func(s *spec, v []string) { network(s).DNSServers = v }),
		strs("time-server", nil, "Time server (repeatable)", func(s *spec, v []string) { network(s).TimeServers = v }),
		i32("lb-pool-size", nil, "Load-balancer IPs per tenant (loadBalancer.defaultPoolSize)", func(s *spec, v *int32) { lb(s).DefaultPoolSize = v }),
		str("lb-allocation", nil, "Load-balancer allocation: static or elastic", func(s *spec, v string) { lb(s).AllocationMode = v }),
		i32("lb-initial-pool-size", nil, "Elastic allocation: IPs to start with", func(s *spec, v *int32) { lb(s).InitialPoolSize = v }),
		i32("lb-growth-increment", nil, "Elastic allocation: IPs added at a time", func(s *spec, v *int32) { lb(s).GrowthIncrement = v }),
		i32("max-node-ips", nil, "Node IPs per tenant (quotaPerTenant.maxNodeIPs)", func(s *spec, v *int32) { quota(s).MaxNodeIPs = v }),
		i32("max-lb-ips", nil, "Load-balancer IPs per tenant (quotaPerTenant.maxLoadBalancerIPs)", func(s *spec, v *int32) { quota(s).MaxLoadBalancerIPs = v }),
		i32("max-clusters-per-team", nil, "Clusters one team may run on it (limits.maxClustersPerTeam)", func(s *spec, v *int32) { limits(s).MaxClustersPerTeam = v }),
		i32("max-nodes-per-team", nil, "Nodes one team may run on it (limits.maxNodesPerTeam)", func(s *spec, v *int32) { limits(s).MaxNodesPerTeam = v }),
	}
}

// sectionSettings are the settings of each provider's section.
func sectionSettings() []*setting {
	return []*setting{
		str("endpoint", []string{v1.ProviderHarvester, v1.ProviderNutanix, v1.ProviderProxmox}, "API endpoint (https://...)", func(s *spec, v string) {
			switch {
			case s.Harvester != nil:
				s.Harvester.Endpoint = v
			case s.Nutanix != nil:
				s.Nutanix.Endpoint = v
			case s.Proxmox != nil:
				s.Proxmox.Endpoint = v
			}
		}),
		str("namespace-on-provider", harvester, "namespace of the VMs (default \"default\")", func(s *spec, v string) { s.Harvester.Namespace = v }),
		str("network-name", harvester, "VM network as namespace/name", func(s *spec, v string) { s.Harvester.NetworkName = v }),
		str("image-name", harvester, "VM image", func(s *spec, v string) { s.Harvester.ImageName = v }),
		str("storage-class", harvester, "StorageClass of VM volumes", func(s *spec, v string) { s.Harvester.StorageClassName = v }),

		i32("port", nutanix, "Prism Central port (default 9440)", func(s *spec, v *int32) { s.Nutanix.Port = v }),
		boolean("insecure", []string{v1.ProviderNutanix, v1.ProviderProxmox}, "skip TLS verification", func(s *spec, v *bool) {
			if s.Nutanix != nil {
				s.Nutanix.Insecure = v
			} else if s.Proxmox != nil {
				s.Proxmox.Insecure = v
			}
		}),
		str("cluster-uuid", nutanix, "AHV cluster UUID", func(s *spec, v string) { s.Nutanix.ClusterUUID = v }),
		str("subnet-uuid", nutanix, "subnet UUID of VM NICs", func(s *spec, v string) { s.Nutanix.SubnetUUID = v }),
		str("image-uuid", nutanix, "VM image UUID", func(s *spec, v string) { s.Nutanix.ImageUUID = v }),
		str("storage-container-uuid", nutanix, "storage container UUID", func(s *spec, v string) { s.Nutanix.StorageContainerUUID = v }),

		strs("node", proxmox, "node name (repeatable, at least one)", func(s *spec, v []string) { s.Proxmox.Nodes = v }),
		str("storage", proxmox, "storage for VM disks", func(s *spec, v string) { s.Proxmox.Storage = v }),
		i32("template-id", proxmox, "VM template to clone", func(s *spec, v *int32) { s.Proxmox.TemplateID = v }),
		i32("vmid-start", proxmox, "first VM id Butler may use (at least 100)", func(s *spec, v *int32) { vmids(s).Start = *v }),
		i32("vmid-end", proxmox, "last VM id Butler may use", func(s *spec, v *int32) { vmids(s).End = *v }),

		str("subscription-id", azure, "subscription ID", func(s *spec, v string) { s.Azure.SubscriptionID = v }),
		str("resource-group", azure, "resource group", func(s *spec, v string) { s.Azure.ResourceGroup = v }),
		str("location", azure, "region, e.g. eastus", func(s *spec, v string) { s.Azure.Location = v }),
		str("vnet-name", azure, "virtual network", func(s *spec, v string) { s.Azure.VNetName = v }),
		str("subnet-name", azure, "subnet of the virtual network", func(s *spec, v string) { s.Azure.SubnetName = v }),
		str("vm-size", azure, "default VM size", func(s *spec, v string) { s.Azure.VMSize = v }),
		str("image-urn", azure, "VM image reference", func(s *spec, v string) { s.Azure.ImageURN = v }),

		str("region", []string{v1.ProviderAWS, v1.ProviderGCP}, "region, e.g. us-east-1", func(s *spec, v string) {
			if s.AWS != nil {
				s.AWS.Region = v
			} else if s.GCP != nil {
				s.GCP.Region = v
			}
		}),
		str("vpc-id", aws, "VPC (default: the default VPC)", func(s *spec, v string) { s.AWS.VPCID = v }),
		strs("subnet-id", aws, "subnet for VMs (repeatable)", func(s *spec, v []string) { s.AWS.SubnetIDs = v }),
		strs("security-group-id", aws, "security group (repeatable)", func(s *spec, v []string) { s.AWS.SecurityGroupIDs = v }),

		str("project-id", gcp, "project ID", func(s *spec, v string) { s.GCP.ProjectID = v }),
		str("zone", gcp, "zone (default REGION-a)", func(s *spec, v string) { s.GCP.Zone = v }),
		str("network", gcp, "VPC network", func(s *spec, v string) { s.GCP.Network = v }),
		str("subnetwork", gcp, "subnetwork of the VPC", func(s *spec, v string) { s.GCP.Subnetwork = v }),
		str("machine-type", gcp, "default machine type", func(s *spec, v string) { s.GCP.MachineType = v }),
		str("image", gcp, "image (wins over --image-family)", func(s *spec, v string) { s.GCP.Image = v }),
		str("image-family", gcp, "image family", func(s *spec, v string) { s.GCP.ImageFamily = v }),
		str("image-project", gcp, "project of the image", func(s *spec, v string) { s.GCP.ImageProject = v }),
		str("service-account", gcp, "service account of the VMs", func(s *spec, v string) { s.GCP.ServiceAccount = v }),
		strs("tag", gcp, "network tag (repeatable)", func(s *spec, v []string) { s.GCP.Tags = v }),

		str("kind-node-image", []string{v1.ProviderLocal}, "kind node image (default: derived from the cluster's Kubernetes version)", func(s *spec, v string) {
			if s.Local == nil {
				s.Local = &v1.LocalConfig{}
			}
			s.Local.KindNodeImage = v
		}),
	}
}

// parsePools reads --pool values: NAME[:PRIORITY], the priority an integer.
func parsePools(values []string) ([]v1.PoolRef, error) {
	var refs []v1.PoolRef
	for _, p := range values {
		name, prio, hasPrio := strings.Cut(p, ":")
		ref := v1.PoolRef{Name: name}
		if hasPrio {
			v, err := strconv.ParseInt(prio, 10, 32)
			if err != nil || name == "" {
				return nil, cmdutil.UsageError("--pool %q: want NAME[:PRIORITY], the priority an integer, e.g. prod-ip-pool:10", p)
			}
			ref.Priority = ptr(int32(v))
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// The parts of the spec that exist once one of their settings is given.

func network(s *spec) *v1.ProviderNetwork {
	if s.Network == nil {
		s.Network = &v1.ProviderNetwork{}
	}
	return s.Network
}

func lb(s *spec) *v1.LoadBalancerConfig {
	n := network(s)
	if n.LoadBalancer == nil {
		n.LoadBalancer = &v1.LoadBalancerConfig{}
	}
	return n.LoadBalancer
}

func quota(s *spec) *v1.QuotaPerTenant {
	n := network(s)
	if n.QuotaPerTenant == nil {
		n.QuotaPerTenant = &v1.QuotaPerTenant{}
	}
	return n.QuotaPerTenant
}

func limits(s *spec) *v1.ProviderLimits {
	if s.Limits == nil {
		s.Limits = &v1.ProviderLimits{}
	}
	return s.Limits
}

func vmids(s *spec) *v1.VMIDRange {
	if s.Proxmox.VMIDRange == nil {
		s.Proxmox.VMIDRange = &v1.VMIDRange{}
	}
	return s.Proxmox.VMIDRange
}

func ptr[T any](v T) *T { return &v }
