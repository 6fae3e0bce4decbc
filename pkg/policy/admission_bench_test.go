package policy_test

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// acBenchRequest is a full create preflight: a team with 20 environments (each with both
// caps), every resource limit, a ProviderConfig with limits, and n existing clusters spread
// over the environments with the labels and annotations the controller and tools write.
func acBenchRequest(n int) policy.ClusterRequest {
	const envs = 20
	team := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "payments"}, Status: v1alpha1.TeamStatus{Namespace: "payments"}}
	for i := 0; i < envs; i++ {
		team.Spec.Environments = append(team.Spec.Environments, v1alpha1.EnvironmentSpec{
			Name:   fmt.Sprintf("env-%02d", i),
			Limits: &v1alpha1.EnvironmentLimits{MaxClusters: acI32(100000), MaxClustersPerMember: acI32(100000)},
		})
	}
	team.Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{
		MaxClusters: acI32(1000000), MaxNodesPerCluster: acI32(50), MaxTotalNodes: acI32(10000000),
		MaxCPUCores: acQty("100M"), MaxMemory: acQty("100Pi"), MaxStorage: acQty("100Ei"),
		AllowedKubernetesVersions: []string{"1.29.x", "1.30.x", "1.31.x"},
		AllowedProviders:          []string{"harvester", "nutanix"},
		AllowedAddons:             []string{"cilium", "cert-manager", "longhorn"},
		DeniedAddons:              []string{"istio"},
	}
	pc := acPC()
	pc.Spec.Limits = &v1alpha1.ProviderLimits{MaxClustersPerTeam: acI32(1000000), MaxNodesPerTeam: acI32(10000000)}

	mems := []resource.Quantity{resource.MustParse("8Gi"), resource.MustParse("16Gi"), resource.MustParse("32Gi")}
	disks := []resource.Quantity{resource.MustParse("50Gi"), resource.MustParse("100Gi"), resource.MustParse("200Gi")}
	sibs := make([]v1alpha1.TenantCluster, n)
	for i := range sibs {
		owner := fmt.Sprintf("user%03d@example.com", i%250)
		sibs[i] = v1alpha1.TenantCluster{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("cluster-%05d", i), Namespace: "payments",
				Labels: map[string]string{
					v1alpha1.LabelEnvironment: fmt.Sprintf("env-%02d", i%envs),
					v1alpha1.LabelTeam:        "payments",
					v1alpha1.LabelManagedBy:   "butler",
				},
				Annotations: map[string]string{
					v1alpha1.AnnotationCreatorEmail: owner,
					v1alpha1.AnnotationOwner:        owner,
				},
				Finalizers: []string{"butler.butlerlabs.dev/tenantcluster"},
			},
			Spec: v1alpha1.TenantClusterSpec{
				KubernetesVersion: "v1.30.4",
				TeamRef:           &v1alpha1.LocalObjectReference{Name: "payments"},
				ProviderConfigRef: &v1alpha1.ProviderReference{Name: "harvester-prod"},
				Workers: v1alpha1.WorkersSpec{Replicas: int32(1 + i%5), MachineTemplate: v1alpha1.MachineTemplate{
					CPU: int32(2 << (i % 3)), Memory: mems[i%3], DiskSize: disks[(i/3)%3],
				}},
			},
		}
		if i%97 == 0 { // a few legacy unlabelled ones, and some being deleted
			delete(sibs[i].Labels, v1alpha1.LabelEnvironment)
		}
		if i%101 == 0 {
			now := metav1.Now()
			sibs[i].DeletionTimestamp = &now
		}
	}
	c := acTC("new", "env-07", "user007@example.com")
	c.Spec.KubernetesVersion = "v1.30.4"
	return policy.ClusterRequest{
		Operation: policy.Create, Cluster: &c, Team: team, Siblings: sibs, ProviderConfig: pc,
		Username: "USER007@example.com", Addons: []string{"cilium", "cert-manager"},
	}
}

func BenchmarkAdmitClusterCreate(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		req := acBenchRequest(n)
		d := policy.AdmitCluster(req)
		if !d.Allowed() || len(d.Checks) != 19 {
			// every create rule, two addons: 19 checks
			b.Fatalf("setup: %v, %d checks", d.Err(), len(d.Checks))
		}
		b.Run(fmt.Sprintf("siblings=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				policy.AdmitCluster(req)
			}
		})
	}
}

// TestAdmitClusterAllocationsDoNotGrow pins the constant allocation count: the same preflight
// over 3,000 and 30,000 siblings allocates as often (within the slack noted below). (Sizes whose printed counts are
// all at least 100 are compared, because strconv returns constant strings below 100.)
func TestAdmitClusterAllocationsDoNotGrow(t *testing.T) {
	small, large := acBenchRequest(3000), acBenchRequest(30000)
	a := testing.AllocsPerRun(5, func() { policy.AdmitCluster(small) })
	b := testing.AllocsPerRun(5, func() { policy.AdmitCluster(large) })
	// A couple of allocations of slack: the race detector's runtime occasionally adds one.
	if b > a+2 || a > 200 {
		t.Fatalf("allocations: %v at 3,000 siblings, %v at 30,000", a, b)
	}
}

// TestAdmitClusterConcurrent shares one request between goroutines: AdmitCluster and the
// usage helpers only read their inputs (run with -race).
func TestAdmitClusterConcurrent(t *testing.T) {
	req := acBenchRequest(500)
	req.Team.Spec.ResourceLimits.MaxMemory = acQty("1.5Ti") // Dec-backed, like many parsed limits
	req.Siblings[3].Spec.Workers.MachineTemplate.Memory = resource.MustParse("1.5Gi")
	req.Siblings[4].Spec.Workers.MachineTemplate.DiskSize = resource.MustParse("1500m")
	want := policy.AdmitCluster(req)
	done := make(chan policy.Decision)
	for i := 0; i < 8; i++ {
		go func() {
			policy.SumUsage(req.Siblings, nil)
			policy.TeamQuota(req.Team, req.Siblings)
			done <- policy.AdmitCluster(req)
		}()
	}
	for i := 0; i < 8; i++ {
		d := <-done
		if len(d.Checks) != len(want.Checks) || d.Checks[len(d.Checks)-1] != want.Checks[len(want.Checks)-1] {
			t.Fatalf("concurrent decision differs: %+v", d.Checks)
		}
	}
}

// BenchmarkServerStyleCreate is the baseline for the figures above: the same request through
// a line-by-line transcription of the server's webhook (the test oracle), which sums
// Quantities cluster by cluster as the server does. Report AdmitCluster as a ratio of it.
func BenchmarkServerStyleCreate(b *testing.B) {
	req := acBenchRequest(10000)
	if err := acOracle(req); err != nil {
		b.Fatalf("setup: %v", err)
	}
	b.Run("siblings=10000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = acOracle(req)
		}
	})
}
