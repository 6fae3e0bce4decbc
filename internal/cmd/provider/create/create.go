// Package create is `butleradm provider create`: build a ProviderConfig from flags or a
// file, check it and its credentials as the server would, then create the credentials
// Secret and the ProviderConfig, undoing the Secret when the ProviderConfig fails.
package create

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Options are the flags and arguments of provider create.
type Options struct {
	Name       string
	File       string
	Provider   string
	SecretName string
	DryRun     bool
	Creds      providerutil.CredentialFlags

	Scope string
	Team  string

	NetworkMode  string
	Pools        []string
	Subnet       string
	Gateway      string
	DNSServers   []string
	TimeServers  []string
	LBPoolSize   int32
	LBAllocation string
	LBInitial    int32
	LBGrowth     int32
	MaxNodeIPs   int32
	MaxLBIPs     int32

	MaxClustersPerTeam int32
	MaxNodesPerTeam    int32

	// Provider sections.
	Endpoint             string
	HarvesterNamespace   string
	NetworkName          string
	ImageName            string
	StorageClass         string
	Port                 int32
	Insecure             bool
	ClusterUUID          string
	SubnetUUID           string
	ImageUUID            string
	StorageContainerUUID string
	Nodes                []string
	Storage              string
	TemplateID           int32
	VMIDStart            int32
	VMIDEnd              int32
	SubscriptionID       string
	ResourceGroup        string
	Location             string
	VNetName             string
	SubnetName           string
	VMSize               string
	ImageURN             string
	Region               string
	VPCID                string
	SubnetIDs            []string
	SecurityGroupIDs     []string
	ProjectID            string
	Zone                 string
	Network              string
	Subnetwork           string
	MachineType          string
	Image                string
	ImageFamily          string
	ImageProject         string
	ServiceAccount       string
	Tags                 []string

	pc *v1alpha1.ProviderConfig
	// obj is the ProviderConfig as read from -f, for problems with file and line.
	obj *manifest.Object
}

// providerFlags are the flags of one provider's section and the providers they apply to.
var providerFlags = map[string][]string{
	"endpoint":               {v1alpha1.ProviderHarvester, v1alpha1.ProviderNutanix, v1alpha1.ProviderProxmox},
	"namespace-on-provider":  {v1alpha1.ProviderHarvester},
	"network-name":           {v1alpha1.ProviderHarvester},
	"image-name":             {v1alpha1.ProviderHarvester},
	"storage-class":          {v1alpha1.ProviderHarvester},
	"port":                   {v1alpha1.ProviderNutanix},
	"insecure":               {v1alpha1.ProviderNutanix, v1alpha1.ProviderProxmox},
	"cluster-uuid":           {v1alpha1.ProviderNutanix},
	"subnet-uuid":            {v1alpha1.ProviderNutanix},
	"image-uuid":             {v1alpha1.ProviderNutanix},
	"storage-container-uuid": {v1alpha1.ProviderNutanix},
	"node":                   {v1alpha1.ProviderProxmox},
	"storage":                {v1alpha1.ProviderProxmox},
	"template-id":            {v1alpha1.ProviderProxmox},
	"vmid-start":             {v1alpha1.ProviderProxmox},
	"vmid-end":               {v1alpha1.ProviderProxmox},
	"subscription-id":        {v1alpha1.ProviderAzure},
	"resource-group":         {v1alpha1.ProviderAzure},
	"location":               {v1alpha1.ProviderAzure},
	"vnet-name":              {v1alpha1.ProviderAzure},
	"subnet-name":            {v1alpha1.ProviderAzure},
	"vm-size":                {v1alpha1.ProviderAzure},
	"image-urn":              {v1alpha1.ProviderAzure},
	"region":                 {v1alpha1.ProviderAWS, v1alpha1.ProviderGCP},
	"vpc-id":                 {v1alpha1.ProviderAWS},
	"subnet-id":              {v1alpha1.ProviderAWS},
	"security-group-id":      {v1alpha1.ProviderAWS},
	"project-id":             {v1alpha1.ProviderGCP},
	"zone":                   {v1alpha1.ProviderGCP},
	"network":                {v1alpha1.ProviderGCP},
	"subnetwork":             {v1alpha1.ProviderGCP},
	"machine-type":           {v1alpha1.ProviderGCP},
	"image":                  {v1alpha1.ProviderGCP},
	"image-family":           {v1alpha1.ProviderGCP},
	"image-project":          {v1alpha1.ProviderGCP},
	"service-account":        {v1alpha1.ProviderGCP},
	"tag":                    {v1alpha1.ProviderGCP},
}

// specFlags describe the ProviderConfig besides the provider sections; with -f the file
// does.
var specFlags = []string{
	"provider", "credentials-secret", "scope", "team", "network-mode", "pool", "subnet", "gateway",
	"dns-server", "time-server", "lb-pool-size", "lb-allocation", "lb-initial-pool-size",
	"lb-growth-increment", "max-node-ips", "max-lb-ips", "max-clusters-per-team", "max-nodes-per-team",
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "create NAME --provider TYPE [SETTINGS] (--credentials-file FILE | --credentials-env-file FILE | --credentials-stdin)",
		Short: "Register an infrastructure provider with its credentials",
		Long: `Register an infrastructure provider: a ProviderConfig and the Secret holding its credentials.

The ProviderConfig comes from flags (--provider harvester, nutanix, proxmox, azure, aws or gcp
and the settings of that provider) or from a file (-f). It is checked first, every problem
at once, with the server's messages: the ProviderConfig webhook's rules (azure needs
--subscription-id and --resource-group, aws --region, gcp --project-id and --region; team
scope needs --team; ipam mode needs --pool and is refused for cloud providers) and the
document's schema rules (https endpoints, harvester networkName namespace/name, proxmox
nodes and VM id range, sizes and limits of at least 1). A problem exits 2.

Credentials are read from a file or standard input, never from a flag, and never printed:
  --credentials-file FILE        a YAML or JSON map KEY: VALUE, or a Secret manifest
  --credentials-env-file FILE    KEY=VALUE lines
  --credentials-stdin            either of the above on standard input
  --credentials-from-file K=FILE one key whose value is a file's content (repeatable),
                                 e.g. kubeconfig=harvester.yaml or serviceAccountKey=key.json
They must hold the keys the provider needs (harvester: kubeconfig; nutanix: username,
password; proxmox: username and password, or token; azure: tenantID, clientID, clientSecret,
subscriptionID; aws: accessKeyID, secretAccessKey; gcp: serviceAccountKey). A credentials file
that group or others may read is warned about.

The Secret (--credentials-secret, default NAME-credentials) and the ProviderConfig are created
in butler-system for platform scope, in the team's namespace for team scope; the
ProviderConfig's credentialsRef names the Secret. Nothing is created when a check fails, and
when the ProviderConfig cannot be created after the Secret was, the Secret is deleted again.
Without credentials flags the referenced Secret must already exist and hold the keys.

Working on manifests, only platform admins (and, for a team-scoped provider, the team's
admins) may create; the ProviderConfig goes to providers/NAME.yaml and the Secret to
secrets/NAME.yaml (mode 0600, data base64-encoded: seal or encrypt it before committing).
--dry-run checks everything and prints both, the Secret's values <redacted>.`,
		Example: `  butleradm provider create harvester-lab --provider harvester \
    --endpoint https://harvester.example.com:6443 --network-name default/vlan40 \
    --network-mode ipam --pool lab-pool:0 --credentials-from-file kubeconfig=harvester.kubeconfig
  butleradm provider create aws-us-east --provider aws --region us-east-1 \
    --max-clusters-per-team 10 --credentials-env-file aws.env
  butleradm provider create azure-platform-team --provider azure --scope team --team platform-team \
    --subscription-id 1234 --resource-group rg --credentials-file azure.yaml --dry-run
  butleradm provider create -f proxmox-elastic.yaml --credentials-stdin < proxmox.env`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return cmdutil.UsageError("unexpected argument %q\nSee '%s --help'.", args[1], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			if err := o.complete(cmd, f); err != nil {
				return err
			}
			return run(cmd.Context(), f, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.File, "filename", "f", "", "The ProviderConfig as a file (- for standard input) instead of flags")
	fl.StringVar(&o.Provider, "provider", "", "Provider type: harvester, nutanix, proxmox, azure, aws or gcp")
	fl.StringVar(&o.SecretName, "credentials-secret", "", "Name of the credentials Secret (default NAME-credentials)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "Check everything and print the objects (secret values redacted) without creating them")
	o.Creds.AddFlags(fl)

	fl.StringVar(&o.Scope, "scope", "", "Who may use it: platform (every team, the default) or team (--team only)")
	fl.StringVar(&o.Team, "team", "", "The team of a team-scoped provider (given on the command line it implies --scope team; a default team from the config file counts only with --scope team)")

	fl.StringVar(&o.NetworkMode, "network-mode", "", "Addressing: cloud (the provider's own, the default) or ipam (Butler's pools)")
	fl.StringArrayVar(&o.Pools, "pool", nil, "IPAM pool as NAME[:PRIORITY], lower priority tried first (repeatable; implies --network-mode ipam)")
	fl.StringVar(&o.Subnet, "subnet", "", "Node subnet CIDR")
	fl.StringVar(&o.Gateway, "gateway", "", "Default gateway")
	fl.StringArrayVar(&o.DNSServers, "dns-server", nil, "DNS server (repeatable)")
	fl.StringArrayVar(&o.TimeServers, "time-server", nil, "Time server (repeatable)")
	fl.Int32Var(&o.LBPoolSize, "lb-pool-size", 0, "Load-balancer IPs per tenant (loadBalancer.defaultPoolSize)")
	fl.StringVar(&o.LBAllocation, "lb-allocation", "", "Load-balancer allocation: static or elastic")
	fl.Int32Var(&o.LBInitial, "lb-initial-pool-size", 0, "Elastic allocation: IPs to start with")
	fl.Int32Var(&o.LBGrowth, "lb-growth-increment", 0, "Elastic allocation: IPs added at a time")
	fl.Int32Var(&o.MaxNodeIPs, "max-node-ips", 0, "Node IPs per tenant (quotaPerTenant.maxNodeIPs)")
	fl.Int32Var(&o.MaxLBIPs, "max-lb-ips", 0, "Load-balancer IPs per tenant (quotaPerTenant.maxLoadBalancerIPs)")
	fl.Int32Var(&o.MaxClustersPerTeam, "max-clusters-per-team", 0, "Clusters one team may run on it (limits.maxClustersPerTeam)")
	fl.Int32Var(&o.MaxNodesPerTeam, "max-nodes-per-team", 0, "Nodes one team may run on it (limits.maxNodesPerTeam)")

	fl.StringVar(&o.Endpoint, "endpoint", "", "harvester, nutanix, proxmox: API endpoint (https://...)")
	fl.StringVar(&o.HarvesterNamespace, "namespace-on-provider", "", "harvester: namespace of the VMs (default \"default\")")
	fl.StringVar(&o.NetworkName, "network-name", "", "harvester: VM network as namespace/name")
	fl.StringVar(&o.ImageName, "image-name", "", "harvester: VM image")
	fl.StringVar(&o.StorageClass, "storage-class", "", "harvester: StorageClass of VM volumes")
	fl.Int32Var(&o.Port, "port", 0, "nutanix: Prism Central port (default 9440)")
	fl.BoolVar(&o.Insecure, "insecure", false, "nutanix, proxmox: skip TLS verification")
	fl.StringVar(&o.ClusterUUID, "cluster-uuid", "", "nutanix: AHV cluster UUID")
	fl.StringVar(&o.SubnetUUID, "subnet-uuid", "", "nutanix: subnet UUID of VM NICs")
	fl.StringVar(&o.ImageUUID, "image-uuid", "", "nutanix: VM image UUID")
	fl.StringVar(&o.StorageContainerUUID, "storage-container-uuid", "", "nutanix: storage container UUID")
	fl.StringArrayVar(&o.Nodes, "node", nil, "proxmox: node name (repeatable, at least one)")
	fl.StringVar(&o.Storage, "storage", "", "proxmox: storage for VM disks")
	fl.Int32Var(&o.TemplateID, "template-id", 0, "proxmox: VM template to clone")
	fl.Int32Var(&o.VMIDStart, "vmid-start", 0, "proxmox: first VM id Butler may use (at least 100)")
	fl.Int32Var(&o.VMIDEnd, "vmid-end", 0, "proxmox: last VM id Butler may use")
	fl.StringVar(&o.SubscriptionID, "subscription-id", "", "azure: subscription ID")
	fl.StringVar(&o.ResourceGroup, "resource-group", "", "azure: resource group")
	fl.StringVar(&o.Location, "location", "", "azure: region, e.g. eastus")
	fl.StringVar(&o.VNetName, "vnet-name", "", "azure: virtual network")
	fl.StringVar(&o.SubnetName, "subnet-name", "", "azure: subnet of the virtual network")
	fl.StringVar(&o.VMSize, "vm-size", "", "azure: default VM size")
	fl.StringVar(&o.ImageURN, "image-urn", "", "azure: VM image reference")
	fl.StringVar(&o.Region, "region", "", "aws, gcp: region, e.g. us-east-1")
	fl.StringVar(&o.VPCID, "vpc-id", "", "aws: VPC (default: the default VPC)")
	fl.StringArrayVar(&o.SubnetIDs, "subnet-id", nil, "aws: subnet for VMs (repeatable)")
	fl.StringArrayVar(&o.SecurityGroupIDs, "security-group-id", nil, "aws: security group (repeatable)")
	fl.StringVar(&o.ProjectID, "project-id", "", "gcp: project ID")
	fl.StringVar(&o.Zone, "zone", "", "gcp: zone (default REGION-a)")
	fl.StringVar(&o.Network, "network", "", "gcp: VPC network")
	fl.StringVar(&o.Subnetwork, "subnetwork", "", "gcp: subnetwork of the VPC")
	fl.StringVar(&o.MachineType, "machine-type", "", "gcp: default machine type")
	fl.StringVar(&o.Image, "image", "", "gcp: image (wins over --image-family)")
	fl.StringVar(&o.ImageFamily, "image-family", "", "gcp: image family")
	fl.StringVar(&o.ImageProject, "image-project", "", "gcp: project of the image")
	fl.StringVar(&o.ServiceAccount, "service-account", "", "gcp: service account of the VMs")
	fl.StringArrayVar(&o.Tags, "tag", nil, "gcp: network tag (repeatable)")
	return cmd
}

// complete builds the ProviderConfig from the flags or the file. Bad flags are usage
// errors (exit 2); problems with the ProviderConfig itself are reported by run, all at once.
func (o *Options) complete(cmd *cobra.Command, f *factory.Factory) error {
	if err := o.Creds.Check(); err != nil {
		return err
	}
	if o.File != "" {
		return o.completeFile(cmd, f)
	}
	if o.Name == "" {
		return cmdutil.UsageError("%s requires a NAME, or -f FILE\nSee '%s --help'.", cmd.CommandPath(), cmd.CommandPath())
	}
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
		return cmdutil.UsageError("invalid ProviderConfig name %q: %s", o.Name, strings.Join(errs, "; "))
	}
	if o.Provider == "" {
		return cmdutil.UsageError("--provider is required: one of %s", strings.Join(v1alpha1.ProviderTypes, ", "))
	}
	var wrong error
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if ps, ok := providerFlags[fl.Name]; ok && wrong == nil && !slices.Contains(ps, o.Provider) && providerutil.OnCommandLine(cmd, fl.Name) {
			wrong = cmdutil.UsageError("--%s applies to --provider %s, not %s", fl.Name, strings.Join(ps, ", "), o.Provider)
		}
	})
	if wrong != nil {
		return wrong
	}
	if o.SecretName == "" {
		o.SecretName = o.Name + "-credentials"
	}
	if errs := validation.IsDNS1123Subdomain(o.SecretName); len(errs) > 0 {
		return cmdutil.UsageError("invalid Secret name %q: %s", o.SecretName, strings.Join(errs, "; "))
	}
	// --team on the command line makes the provider team-scoped; a team from the config
	// file or BUTLER_TEAM counts only with --scope team.
	teamTyped := o.Team != "" && providerutil.OnCommandLine(cmd, "team")
	if o.Scope == v1alpha1.ScopePlatform && teamTyped {
		return cmdutil.UsageError("--team names the team of a team-scoped provider; it cannot go with --scope platform")
	}
	scope := o.Scope
	if scope == "" && teamTyped {
		scope = v1alpha1.ScopeTeam
	}

	pc := &v1alpha1.ProviderConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindProviderConfig},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name},
		Spec: v1alpha1.ProviderConfigSpec{
			Provider:       o.Provider,
			CredentialsRef: v1alpha1.SecretReference{Name: o.SecretName},
		},
	}
	o.section(cmd.Flags(), &pc.Spec)
	if scope != "" {
		sc := &v1alpha1.ProviderScope{Type: scope}
		if scope == v1alpha1.ScopeTeam && o.Team != "" {
			sc.TeamRef = &v1alpha1.LocalObjectReference{Name: o.Team}
		}
		pc.Spec.Scope = sc
	}
	var err error
	if pc.Spec.Network, err = o.network(cmd.Flags()); err != nil {
		return err
	}
	changed := cmd.Flags().Changed
	if changed("max-clusters-per-team") || changed("max-nodes-per-team") {
		l := &v1alpha1.ProviderLimits{}
		if changed("max-clusters-per-team") {
			l.MaxClustersPerTeam = ptr(o.MaxClustersPerTeam)
		}
		if changed("max-nodes-per-team") {
			l.MaxNodesPerTeam = ptr(o.MaxNodesPerTeam)
		}
		pc.Spec.Limits = l
	}
	o.pc = pc
	return nil
}

// section fills the section of the chosen provider. The section is always there, so that
// a missing setting is reported by its field ("spec.aws.region: Required value: ...").
func (o *Options) section(fs *pflag.FlagSet, s *v1alpha1.ProviderConfigSpec) {
	changed := fs.Changed
	var insecure *bool
	if changed("insecure") {
		insecure = &o.Insecure
	}
	switch o.Provider {
	case v1alpha1.ProviderHarvester:
		s.Harvester = &v1alpha1.HarvesterConfig{
			Endpoint: o.Endpoint, Namespace: o.HarvesterNamespace, NetworkName: o.NetworkName,
			ImageName: o.ImageName, StorageClassName: o.StorageClass,
		}
	case v1alpha1.ProviderNutanix:
		n := &v1alpha1.NutanixConfig{
			Endpoint: o.Endpoint, Insecure: insecure, ClusterUUID: o.ClusterUUID, SubnetUUID: o.SubnetUUID,
			ImageUUID: o.ImageUUID, StorageContainerUUID: o.StorageContainerUUID,
		}
		if changed("port") {
			n.Port = ptr(o.Port)
		}
		s.Nutanix = n
	case v1alpha1.ProviderProxmox:
		p := &v1alpha1.ProxmoxConfig{Endpoint: o.Endpoint, Insecure: insecure, Nodes: o.Nodes, Storage: o.Storage}
		if changed("template-id") {
			p.TemplateID = ptr(o.TemplateID)
		}
		if changed("vmid-start") || changed("vmid-end") {
			p.VMIDRange = &v1alpha1.VMIDRange{Start: o.VMIDStart, End: o.VMIDEnd}
		}
		s.Proxmox = p
	case v1alpha1.ProviderAzure:
		s.Azure = &v1alpha1.AzureConfig{
			SubscriptionID: o.SubscriptionID, ResourceGroup: o.ResourceGroup, Location: o.Location,
			VNetName: o.VNetName, SubnetName: o.SubnetName, VMSize: o.VMSize, ImageURN: o.ImageURN,
		}
	case v1alpha1.ProviderAWS:
		s.AWS = &v1alpha1.AWSConfig{Region: o.Region, VPCID: o.VPCID, SubnetIDs: o.SubnetIDs, SecurityGroupIDs: o.SecurityGroupIDs}
	case v1alpha1.ProviderGCP:
		s.GCP = &v1alpha1.GCPConfig{
			ProjectID: o.ProjectID, Region: o.Region, Zone: o.Zone, Network: o.Network, Subnetwork: o.Subnetwork,
			MachineType: o.MachineType, Image: o.Image, ImageFamily: o.ImageFamily, ImageProject: o.ImageProject,
			ServiceAccount: o.ServiceAccount, Tags: o.Tags,
		}
	}
}

// network is spec.network from the flags, nil when none was given.
func (o *Options) network(fs *pflag.FlagSet) (*v1alpha1.ProviderNetwork, error) {
	changed := fs.Changed
	any := false
	for _, name := range []string{"network-mode", "pool", "subnet", "gateway", "dns-server", "time-server",
		"lb-pool-size", "lb-allocation", "lb-initial-pool-size", "lb-growth-increment", "max-node-ips", "max-lb-ips"} {
		any = any || changed(name)
	}
	if !any {
		return nil, nil
	}
	n := &v1alpha1.ProviderNetwork{
		Mode: o.NetworkMode, Subnet: o.Subnet, Gateway: o.Gateway,
		DNSServers: o.DNSServers, TimeServers: o.TimeServers,
	}
	for _, p := range o.Pools {
		name, prio, hasPrio := strings.Cut(p, ":")
		ref := v1alpha1.PoolRef{Name: name}
		if hasPrio {
			v, err := strconv.ParseInt(prio, 10, 32)
			if err != nil || name == "" {
				return nil, cmdutil.UsageError("--pool %q: want NAME[:PRIORITY], the priority an integer, e.g. prod-ip-pool:10", p)
			}
			ref.Priority = ptr(int32(v))
		}
		n.PoolRefs = append(n.PoolRefs, ref)
	}
	if n.Mode == "" && len(n.PoolRefs) > 0 {
		n.Mode = v1alpha1.NetworkModeIPAM
	}
	if changed("lb-pool-size") || changed("lb-allocation") || changed("lb-initial-pool-size") || changed("lb-growth-increment") {
		lb := &v1alpha1.LoadBalancerConfig{AllocationMode: o.LBAllocation}
		if changed("lb-pool-size") {
			lb.DefaultPoolSize = ptr(o.LBPoolSize)
		}
		if changed("lb-initial-pool-size") {
			lb.InitialPoolSize = ptr(o.LBInitial)
		}
		if changed("lb-growth-increment") {
			lb.GrowthIncrement = ptr(o.LBGrowth)
		}
		n.LoadBalancer = lb
	}
	if changed("max-node-ips") || changed("max-lb-ips") {
		q := &v1alpha1.QuotaPerTenant{}
		if changed("max-node-ips") {
			q.MaxNodeIPs = ptr(o.MaxNodeIPs)
		}
		if changed("max-lb-ips") {
			q.MaxLoadBalancerIPs = ptr(o.MaxLBIPs)
		}
		n.QuotaPerTenant = q
	}
	return n, nil
}

// completeFile reads the ProviderConfig of -f: exactly one, decoded strictly.
func (o *Options) completeFile(cmd *cobra.Command, f *factory.Factory) error {
	for _, name := range specFlags {
		if providerutil.OnCommandLine(cmd, name) {
			return cmdutil.UsageError("--%s cannot be combined with -f: the file describes the ProviderConfig", name)
		}
	}
	for name := range providerFlags {
		if providerutil.OnCommandLine(cmd, name) {
			return cmdutil.UsageError("--%s cannot be combined with -f: the file describes the ProviderConfig", name)
		}
	}
	if o.File == manifest.Stdin && o.Creds.Stdin {
		return cmdutil.UsageError("-f - and --credentials-stdin cannot both read standard input")
	}
	objs, probs := providerutil.ReadManifests([]string{o.File}, f.IOStreams.In)
	if len(probs) > 0 {
		return report(f, o.File, probs)
	}
	if len(objs) != 1 {
		return cmdutil.UsageError("%s holds %d objects: create -f takes one ProviderConfig", o.File, len(objs))
	}
	obj := objs[0]
	pc, ok := obj.Obj.(*v1alpha1.ProviderConfig)
	if !ok {
		return cmdutil.UsageError("%s holds a %s, not a ProviderConfig (credentials go in --credentials-file)", o.File, obj.Kind)
	}
	switch {
	case o.Name != "" && pc.Name == "":
		pc.Name, obj.Name = o.Name, o.Name
	case o.Name != "" && pc.Name != o.Name:
		return cmdutil.UsageError("NAME %q and the file's metadata.name %q differ", o.Name, pc.Name)
	}
	if pc.Spec.CredentialsRef.Name == "" && o.Creds.Given() && pc.Name != "" {
		pc.Spec.CredentialsRef.Name = pc.Name + "-credentials"
	}
	pc.APIVersion, pc.Kind = v1alpha1.APIVersion, v1alpha1.KindProviderConfig
	o.pc, o.obj = pc, &obj
	return nil
}

// report prints the problems of a file, one a line, and fails with exit 2.
func report(f *factory.Factory, file string, probs []*manifest.DecodeError) error {
	providerutil.SortProblems(probs)
	for _, p := range probs {
		f.Errorf("%s\n", p.Error())
	}
	noun := "problem"
	if len(probs) > 1 {
		noun = "problems"
	}
	return cmdutil.UsageError("%s: %d %s: nothing was created", file, len(probs), noun)
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
	if err := f.ValidateOutput("table", "json", "yaml", "name"); err != nil {
		return err
	}
	pc := o.pc

	// 1. The ProviderConfig, every problem at once, in the server's words.
	if o.obj != nil {
		if probs := providerutil.Problems(*o.obj); len(probs) > 0 {
			return report(f, o.File, probs)
		}
	} else if probs := providerutil.Problems(manifest.Object{Obj: pc}); len(probs) > 0 {
		return cmdutil.UsageError("%s", providerutil.Aggregate(probs))
	}

	// 2. The credentials: read, then their key names checked; values are never shown.
	var creds *providerutil.Credentials
	if o.Creds.Given() {
		var err error
		creds, err = o.Creds.Read(f.IOStreams.In, func(msg string) { f.Errorf("%s", msg) })
		if err != nil {
			return err
		}
		if err := policy.ValidateCredentials(pc.Spec.Provider, creds.Keys()); err != nil {
			return cmdutil.UsageError("%s: %v", creds.Source, err)
		}
	}

	// 3. Where it goes, who asks, and what already exists.
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	home, team, err := providerutil.Home(ctx, s, pc)
	if err != nil {
		return err
	}
	if err := placeIn(pc, home, team); err != nil {
		return err
	}
	if err := providerutil.Authorize(ctx, s, pc, team, "create"); err != nil {
		return err
	}
	w, err := providerutil.Writer(s)
	if err != nil {
		return err
	}
	if _, err := s.GetProviderConfig(ctx, pc.Namespace, pc.Name); err == nil {
		return apierrors.NewAlreadyExists(v1alpha1.Resource("providerconfigs"), pc.Name)
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	secNS, secName := providerutil.SecretRef(pc)
	keys, err := w.SecretKeys(ctx, secNS, secName)
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		return err
	case creds != nil && err == nil:
		return cmdutil.UsageError("Secret %s/%s already exists: pick another name with --credentials-secret, or leave out the --credentials-* flags to use it as it is (rotate-credentials replaces its data)", secNS, secName)
	case creds == nil && err == nil:
		if err := policy.ValidateCredentials(pc.Spec.Provider, keys); err != nil {
			return cmdutil.UsageError("Secret %s/%s: %v", secNS, secName, err)
		}
	case creds == nil && s.Mode() == "live":
		return cmdutil.NotFoundError("Secret %s/%s, the ProviderConfig's credentials, not found: pass --credentials-file, --credentials-env-file, --credentials-stdin or --credentials-from-file to create it", secNS, secName)
	case creds == nil:
		f.Errorf("note: Secret %s/%s is not in the manifests; the provider is not usable until it exists with keys %s\n",
			secNS, secName, keySets(pc.Spec.Provider))
	}
	var secret *corev1.Secret
	if creds != nil {
		secret = providerutil.NewSecret(pc, creds)
	}

	out := f.IOStreams.Out
	if o.DryRun {
		return printObjects(f, pc, secret, true)
	}

	// 4. The Secret, then the ProviderConfig; the Secret goes again if the second fails.
	var secRes store.Result
	if secret != nil {
		if secRes, err = w.CreateSecret(ctx, secret); err != nil {
			return err
		}
	}
	pcRes, err := w.CreateProviderConfig(ctx, pc)
	if err != nil {
		if secret == nil {
			return err
		}
		if _, derr := w.DeleteSecret(ctx, secret.Namespace, secret.Name); derr != nil {
			return fmt.Errorf("%w; the Secret %s/%s created before it could not be deleted again (%v): delete it by hand", err, secret.Namespace, secret.Name, derr)
		}
		f.Errorf("Secret %s/%s deleted again: the ProviderConfig was not created\n", secret.Namespace, secret.Name)
		return err
	}
	if secret != nil && s.Mode() != "live" {
		f.Errorf("note: %s holds the credentials base64-encoded, not encrypted: seal or encrypt it (Sealed Secrets, SOPS) before committing it\n", secRes.Location)
	}
	switch f.Options.Output {
	case "json", "yaml", "name":
		return printObjects(f, pc, secret, false)
	}
	if secret != nil {
		providerutil.Done(out, s, providerutil.SecretResourceName(secret.Name)+" created", secRes)
	}
	providerutil.Done(out, s, providerutil.ResourceName(pc.Name)+" created", pcRes)
	return nil
}

// placeIn puts pc in its home namespace (a namespace given in the file must be that one)
// and points a credentialsRef without a namespace there. A team-scoped provider's Secret
// must be in the team's namespace: a reference elsewhere would reach credentials that are
// not the team's.
func placeIn(pc *v1alpha1.ProviderConfig, home string, team *v1alpha1.Team) error {
	if pc.Namespace != "" && pc.Namespace != home {
		why := fmt.Sprintf("a platform-scoped ProviderConfig lives in %q", home)
		if team != nil {
			why = fmt.Sprintf("a ProviderConfig scoped to team %q lives in the team's namespace %q", team.Name, home)
		}
		return cmdutil.UsageError("metadata.namespace: Invalid value: %q: %s", pc.Namespace, why)
	}
	pc.Namespace = home
	ref := &pc.Spec.CredentialsRef
	if ref.Namespace == "" {
		ref.Namespace = home
	}
	if team != nil && ref.Namespace != home {
		return cmdutil.UsageError("spec.credentialsRef.namespace: Invalid value: %q: the credentials of a team-scoped ProviderConfig must be in the team's namespace %q", ref.Namespace, home)
	}
	// What the server fills in is not sent.
	pc.ResourceVersion, pc.UID, pc.Generation = "", "", 0
	pc.CreationTimestamp = metav1.Time{}
	pc.ManagedFields = nil
	pc.Status = v1alpha1.ProviderConfigStatus{}
	return nil
}

// printObjects prints the ProviderConfig and the Secret, its values redacted: YAML by
// default (a dry run), -o json as a List, -o name as names.
func printObjects(f *factory.Factory, pc *v1alpha1.ProviderConfig, secret *corev1.Secret, dryRun bool) error {
	out := f.IOStreams.Out
	format := f.Options.Output
	if format == "name" {
		fmt.Fprintln(out, providerutil.ResourceName(pc.Name))
		if secret != nil {
			fmt.Fprintln(out, providerutil.SecretResourceName(secret.Name))
		}
		return nil
	}
	if format != "json" {
		format = "yaml"
	}
	objs := []any{providerutil.WithTypeMeta(*pc)}
	if secret != nil {
		objs = append(objs, providerutil.RedactedSecret(secret))
	}
	if err := providerutil.PrintObjects(out, format, objs...); err != nil {
		return err
	}
	if dryRun {
		f.Errorf("dry run: nothing was created\n")
	}
	return nil
}

// keySets names the key sets a provider's credentials may have: "kubeconfig", or
// "username, password" or "token".
func keySets(provider string) string {
	var alts []string
	for _, set := range policy.RequiredCredentialKeys(provider) {
		alts = append(alts, strings.Join(set, ", "))
	}
	return strings.Join(alts, " or ")
}

func ptr[T any](v T) *T { return &v }
