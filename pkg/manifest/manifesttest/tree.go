// Package manifesttest generates large manifest trees for benchmarks of the loader: one
// Team per team, a ProviderConfig, and TenantClusters sized like those of a real GitOps
// repository (labels, annotations, control-plane and worker fields), one file each.
package manifesttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Tree describes a generated tree.
type Tree struct {
	Dir      string
	Files    int
	Bytes    int64
	Clusters []string // cluster file paths, in generation order
}

// Generate writes teams Teams and clusters TenantClusters (spread evenly over the teams)
// under dir: dir/platform/provider.yaml, dir/<team>/team.yaml and
// dir/<team>/clusters/<name>.yaml. Every object is valid and the team limits leave room,
// so that a check of the tree passes.
func Generate(dir string, teams, clusters int) (*Tree, error) {
	t := &Tree{Dir: dir}
	if err := t.write(filepath.Join(dir, "platform", "provider.yaml"), provider); err != nil {
		return nil, err
	}
	per := (clusters + teams - 1) / teams
	for i := 0; i < teams; i++ {
		team := fmt.Sprintf("team-%02d", i)
		if err := t.write(filepath.Join(dir, team, "team.yaml"), teamDoc(team, per)); err != nil {
			return nil, err
		}
	}
	for i := 0; i < clusters; i++ {
		team := fmt.Sprintf("team-%02d", i%teams)
		name := fmt.Sprintf("%s-c%05d", team, i)
		p := filepath.Join(dir, team, "clusters", name+".yaml")
		if err := t.write(p, Cluster(team, name, i)); err != nil {
			return nil, err
		}
		t.Clusters = append(t.Clusters, p)
	}
	return t, nil
}

func (t *Tree) write(p, text string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		return err
	}
	t.Files++
	t.Bytes += int64(len(text))
	return nil
}

const provider = `# The platform's Harvester cluster, usable by every team.
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ProviderConfig
metadata:
  name: harvester-prod
  namespace: butler-system
spec:
  provider: harvester
  credentialsRef:
    name: harvester-credentials
    namespace: butler-system
  harvester:
    endpoint: https://harvester.example.com:6443
    namespace: default
    networkName: default/vlan-100
  scope:
    type: platform
`

// Members returns the e-mail of member m of a team.
func Members(team string, m int) string { return fmt.Sprintf("dev%d.%s@example.com", m, team) }

const members = 25

// Team returns the manifest of a Team whose limits leave room for perTeam clusters.
func Team(team string, perTeam int) string { return teamDoc(team, perTeam) }

func teamDoc(team string, perTeam int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata:
  name: %[1]s
spec:
  displayName: Team %[1]s
  description: Services of %[1]s
  access:
    users:
`, team)
	for m := 0; m < members; m++ {
		role := "operator"
		if m == 0 {
			role = "admin"
		}
		fmt.Fprintf(&b, "      - name: %s\n        role: %s\n", Members(team, m), role)
	}
	fmt.Fprintf(&b, `  providerConfigRef:
    name: harvester-prod
  resourceLimits:
    maxClusters: %d
  environments:
    - name: dev
      limits:
        maxClustersPerMember: %d
    - name: prod
      limits:
        maxClustersPerMember: %d
status:
  namespace: %s
`, perTeam*2, perTeam, perTeam, team)
	return b.String()
}

// Cluster returns the manifest of cluster i of a team: about 4 KB, as clusters with
// labels, annotations and most spec fields written out are.
func Cluster(team, name string, i int) string {
	env := "dev"
	if i%3 == 0 {
		env = "prod"
	}
	owner := Members(team, 1+i%(members-1))
	return fmt.Sprintf(clusterFormat, team, name, env, owner, i%10000, i%7+1, i%250, 1+i%5, 2+2*(i%4), 4+4*(i%4))
}

// clusterFormat is a cluster's manifest: 1 team, 2 name, 3 environment, 4 owner,
// 5 cost centre, 6 a small number, 7 a subnet, 8 workers, 9 CPUs, 10 GiB of memory.
const clusterFormat = `# %[2]s: a cluster of %[1]s (generated for the loader benchmark).
# Owned by %[4]s; see the team's runbook before changing the worker sizes.
#
# Change process: open a pull request against this repository; the CI gate runs
# butlerctl check on the tree and on the change, and a member of the platform team
# reviews changes to the control plane. Worker counts and sizes count against the
# team's quotas, which the gate checks before the merge, not after it.
#
# Capacity notes: the workers below were sized from the last quarter's load test;
# raise the replicas before the memory, and keep the disk at 100Gi unless the
# storage team has agreed to more (the Harvester volumes are thin-provisioned).
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: %[2]s
  namespace: %[1]s
  labels:
    butler.butlerlabs.dev/environment: %[3]s
    butler.butlerlabs.dev/team: %[1]s
    app.kubernetes.io/name: %[2]s
    app.kubernetes.io/part-of: %[1]s-platform
    app.kubernetes.io/managed-by: argocd
    example.com/cost-center: cc-%04[5]d
    example.com/tier: tier-%[6]d
    example.com/region: eu-west-%[6]d
  annotations:
    butler.butlerlabs.dev/creator-email: %[4]s
    butler.butlerlabs.dev/owner: %[4]s
    example.com/description: >-
      Cluster %[2]s runs the %[3]s workloads of %[1]s: the API gateway, the batch
      workers and their queues, the caches in front of the databases, and the
      observability agents that ship logs and metrics to the central platform.
    example.com/maintenance-window: >-
      Saturdays 02:00-06:00 UTC; upgrades of the control plane only in this window,
      worker pools may be rolled at any time when the budget of disruptions allows it.
    example.com/dependencies: postgres-%[1]s-primary,redis-%[1]s-cache,kafka-shared-eu,vault-shared
    example.com/runbook: https://runbooks.example.com/%[1]s/%[2]s
    example.com/on-call: https://oncall.example.com/schedules/%[1]s-primary
    argocd.argoproj.io/sync-options: Prune=false,ServerSideApply=true
    argocd.argoproj.io/tracking-id: %[1]s:butler.butlerlabs.dev/TenantCluster:%[1]s/%[2]s
spec:
  kubernetesVersion: v1.31.%[6]d
  teamRef:
    name: %[1]s
  providerConfigRef:
    name: harvester-prod
    namespace: butler-system
  controlPlane:
    replicas: 3
    certSANs:
      - %[2]s.%[1]s.k8s.example.com
      - %[2]s-api.%[1]s.internal.example.com
      - 10.%[6]d.%[7]d.10
    externalCloudProvider: true
    serviceType: LoadBalancer
    resources:
      apiServer:
        requests:
          cpu: 500m
          memory: 1Gi
        limits:
          cpu: "2"
          memory: 4Gi
      controllerManager:
        requests:
          cpu: 250m
          memory: 512Mi
        limits:
          cpu: "1"
          memory: 1Gi
      scheduler:
        requests:
          cpu: 100m
          memory: 256Mi
        limits:
          cpu: 500m
          memory: 512Mi
  workers:
    replicas: %[8]d
    machineTemplate:
      cpu: %[9]d
      memory: %[10]dGi
      diskSize: 100Gi
      os:
        type: talos
        version: v1.8.%[6]d
        imageRef: ghcr.io/siderolabs/installer:v1.8.%[6]d
        sshAuthorizedKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx0b2FkZXItYmVuY2htYXJrLWtleS0wMDAwMDAw %[4]s
  networking:
    podCIDR: 10.%[6]d%[6]d.0.0/16
    serviceCIDR: 10.96.0.0/12
    loadBalancerPool:
      start: 10.%[6]d.%[7]d.100
      end: 10.%[6]d.%[7]d.150
    lbPoolSize: 8
  infrastructureOverride:
    harvester:
      namespace: %[1]s-vms
      networkName: %[1]s/vlan-%[7]d
      imageName: talos-v1-8-%[6]d
  timeServers:
    - time1.example.com
    - time2.example.com
    - time3.example.com
`
