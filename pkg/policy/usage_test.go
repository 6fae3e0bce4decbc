package policy_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

func acUsageCluster(name, env, owner, creator string, replicas, cpu int32, mem, disk string) v1alpha1.TenantCluster {
	c := v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "payments"}}
	if env != "" {
		c.Labels = map[string]string{v1alpha1.LabelEnvironment: env}
	}
	if owner != "" || creator != "" {
		c.Annotations = map[string]string{}
		if owner != "" {
			c.Annotations[v1alpha1.AnnotationOwner] = owner
		}
		if creator != "" {
			c.Annotations[v1alpha1.AnnotationCreatorEmail] = creator
		}
	}
	c.Spec.Workers.Replicas = replicas
	c.Spec.Workers.MachineTemplate.CPU = cpu
	if mem != "" {
		c.Spec.Workers.MachineTemplate.Memory = resource.MustParse(mem)
	}
	if disk != "" {
		c.Spec.Workers.MachineTemplate.DiskSize = resource.MustParse(disk)
	}
	return c
}

// acLoopSum is the webhook's memory/storage loop: a BinarySI zero plus q, replicas times.
func acLoopSum(clusters []v1alpha1.TenantCluster, pick func(*v1alpha1.TenantCluster) resource.Quantity) resource.Quantity {
	s := resource.NewQuantity(0, resource.BinarySI)
	for i := range clusters {
		for j := int32(0); j < clusters[i].Spec.Workers.Replicas; j++ {
			s.Add(pick(&clusters[i]))
		}
	}
	return *s
}

func TestSumUsageMatchesServerLoops(t *testing.T) {
	pool := []string{"16Gi", "8G", "1500m", "1.5Gi", "0", "-1Gi", "1e3", "100M", "0.1Gi", "8Ei", "1k",
		"512Mi", "", "-512Mi", "3", "1.000", "9223372036854775807", "-9223372036854775807", "1m", "4e18", "-2"}
	rng := rand.New(rand.NewSource(7))
	for iter := 0; iter < 20000; iter++ {
		var cs []v1alpha1.TenantCluster
		for n := rng.Intn(8); n > 0; n-- {
			cs = append(cs, acUsageCluster("c", "", "", "", int32(rng.Intn(6))-1, int32(rng.Intn(40))-5,
				pool[rng.Intn(len(pool))], pool[rng.Intn(len(pool))]))
		}
		u := policy.SumUsage(cs, nil)
		wantMem := acLoopSum(cs, func(c *v1alpha1.TenantCluster) resource.Quantity { return c.Spec.Workers.MachineTemplate.Memory })
		wantDisk := acLoopSum(cs, func(c *v1alpha1.TenantCluster) resource.Quantity { return c.Spec.Workers.MachineTemplate.DiskSize })
		wantCPU := resource.NewQuantity(0, resource.DecimalSI)
		var nodes int64
		for i := range cs {
			w := cs[i].Spec.Workers
			wantCPU.Add(*resource.NewQuantity(int64(w.MachineTemplate.CPU)*int64(w.Replicas), resource.DecimalSI))
			nodes += int64(w.Replicas)
		}
		for _, p := range []struct {
			what      string
			got, want resource.Quantity
		}{{"memory", u.Memory, wantMem}, {"storage", u.Storage, wantDisk}, {"cpu", u.CPU, *wantCPU}} {
			if p.got.String() != p.want.String() || p.got.Cmp(p.want) != 0 {
				t.Fatalf("iter %d %s: got %s, server loop %s (clusters %+v)", iter, p.what, p.got.String(), p.want.String(), cs)
			}
		}
		if u.Clusters != len(cs) || u.Nodes != nodes {
			t.Fatalf("counts: %+v", u)
		}
	}
}

func TestSumUsageFormats(t *testing.T) {
	cs := []v1alpha1.TenantCluster{
		acUsageCluster("a", "dev", "", "", 3, 4, "16Gi", "100Gi"),
		acUsageCluster("b", "prod", "", "", 2, 8, "32Gi", "200Gi"),
	}
	deleting := acUsageCluster("c", "prod", "", "", 1, 2, "8Gi", "50Gi")
	now := metav1.Now()
	deleting.DeletionTimestamp = &now
	cs = append(cs, deleting)
	u := policy.SumUsage(cs, nil)
	if u.Clusters != 3 || u.Nodes != 6 || u.CPU.String() != "30" || u.Memory.String() != "120Gi" || u.Storage.String() != "750Gi" {
		t.Fatalf("usage: %d %d %s %s %s", u.Clusters, u.Nodes, u.CPU.String(), u.Memory.String(), u.Storage.String())
	}
	prod := policy.SumUsage(cs, func(c *v1alpha1.TenantCluster) bool { return c.Environment() == "prod" })
	if prod.Clusters != 2 || prod.CPU.String() != "18" || prod.Memory.String() != "72Gi" {
		t.Fatalf("prod usage: %+v %s", prod, prod.Memory.String())
	}
	// a decimal first addend decides the format, exactly as Quantity.Add does
	mixed := []v1alpha1.TenantCluster{acUsageCluster("a", "", "", "", 1, 1, "1G", "1Gi"), acUsageCluster("b", "", "", "", 1, 1, "1Gi", "1G")}
	m := policy.SumUsage(mixed, nil)
	if m.Memory.String() != "2073741824" || m.Storage.String() != "2073741824" {
		t.Fatalf("mixed formats: %s %s", m.Memory.String(), m.Storage.String())
	}
	empty := policy.SumUsage(nil, nil)
	if empty.CPU.String() != "0" || empty.Memory.String() != "0" || empty.Clusters != 0 {
		t.Fatalf("empty: %+v", empty)
	}
}

func TestSumUsageDoesNotTouchInputs(t *testing.T) {
	cs := []v1alpha1.TenantCluster{acUsageCluster("a", "", "", "", 3, 4, "1.5Gi", "0.1Gi")}
	before, _ := json.Marshal(cs)
	policy.SumUsage(cs, nil)
	after, _ := json.Marshal(cs)
	if string(before) != string(after) {
		t.Fatalf("inputs changed:\n%s\n%s", before, after)
	}
}

func TestEnvironmentAndMemberCount(t *testing.T) {
	cs := []v1alpha1.TenantCluster{
		acUsageCluster("d1", "dev", "carol@example.com", "carol@example.com", 1, 1, "", ""),
		acUsageCluster("d2", "dev", "", "Carol@Example.COM", 1, 1, "", ""),                // creator fallback, case-insensitive
		acUsageCluster("d3", "dev", "bob@example.com", "carol@example.com", 1, 1, "", ""), // owner wins
		acUsageCluster("d4", "dev", "", "", 1, 1, "", ""),                                 // nobody's
		acUsageCluster("p1", "prod", "carol@example.com", "", 1, 1, "", ""),
		acUsageCluster("legacy", "", "carol@example.com", "", 1, 1, "", ""), // unlabelled: no env
	}
	if n := policy.EnvironmentCount(cs, "dev", ""); n != 4 {
		t.Errorf("dev count = %d", n)
	}
	if n := policy.EnvironmentCount(cs, "dev", "d1"); n != 3 {
		t.Errorf("dev count excluding d1 = %d", n)
	}
	if n := policy.EnvironmentCount(cs, "prod", ""); n != 1 {
		t.Errorf("prod count = %d", n)
	}
	if n := policy.MemberCount(cs, "dev", "CAROL@example.com", ""); n != 2 {
		t.Errorf("carol in dev = %d", n)
	}
	if n := policy.MemberCount(cs, "dev", "carol@example.com", "d2"); n != 1 {
		t.Errorf("carol in dev excluding d2 = %d", n)
	}
	if n := policy.MemberCount(cs, "dev", "bob@example.com", ""); n != 1 {
		t.Errorf("bob in dev = %d", n)
	}
	if n := policy.MemberCount(cs, "dev", "", ""); n != 0 {
		t.Errorf("nobody owns = %d", n)
	}
	eu := policy.EnvironmentUsageOf(acPayments(), "dev", cs)
	if eu.Clusters != 4 || eu.MaxClusters != 0 || eu.MaxClustersPerMember != 2 || len(eu.Members) != 2 ||
		eu.Members["carol@example.com"] != 2 || eu.Members["bob@example.com"] != 1 {
		t.Errorf("dev usage: %+v", eu)
	}
	eu = policy.EnvironmentUsageOf(acPayments(), "prod", cs)
	if eu.Clusters != 1 || eu.MaxClusters != 6 || eu.MaxClustersPerMember != 1 || eu.Members["carol@example.com"] != 1 {
		t.Errorf("prod usage: %+v", eu)
	}
	eu = policy.EnvironmentUsageOf(nil, "qa", cs)
	if eu.Clusters != 0 || eu.MaxClusters != 0 || eu.Members == nil {
		t.Errorf("unknown env usage: %+v", eu)
	}
}

func TestUtilizationAndStatus(t *testing.T) {
	q := resource.MustParse
	for _, c := range []struct {
		used, limit string
		want        int
	}{
		{"0", "10", 0}, {"8", "10", 80}, {"81", "100", 81}, {"1", "8", 13}, {"1", "200", 1}, {"1", "201", 0},
		{"10", "10", 100}, {"11", "10", 110}, {"496Gi", "480Gi", 103}, {"240Gi", "480Gi", 50},
		{"500m", "1", 50}, {"1", "3", 33}, {"2", "3", 67}, {"1e18", "1e16", 10000}, {"8Ei", "7Ei", 114},
		{"0", "0", 0}, {"1", "0", math.MaxInt}, {"-1", "0", 0}, {"-1", "8", -13},
	} {
		if got := policy.Utilization(q(c.used), q(c.limit)); got != c.want {
			t.Errorf("Utilization(%s, %s) = %d, want %d", c.used, c.limit, got, c.want)
		}
	}
	for _, c := range []struct {
		pcts []int
		want string
	}{
		{nil, "OK"}, {[]int{0}, "OK"}, {[]int{80}, "OK"}, {[]int{81}, "Warning"}, {[]int{100}, "Warning"},
		{[]int{101}, "Exceeded"}, {[]int{50, 90, 10}, "Warning"}, {[]int{90, 150}, "Exceeded"}, {[]int{math.MaxInt}, "Exceeded"},
	} {
		if got := policy.QuotaStatus(c.pcts...); got != c.want {
			t.Errorf("QuotaStatus(%v) = %s, want %s", c.pcts, got, c.want)
		}
	}
}

func TestTeamQuota(t *testing.T) {
	team := acPayments()
	team.Spec.ResourceLimits.MaxTotalNodes = acI32(10)
	team.Spec.ResourceLimits.MaxCPUCores = acQty("40")
	team.Spec.ResourceLimits.MaxMemory = acQty("0") // zero: no limit, as on the server
	cs := []v1alpha1.TenantCluster{
		acUsageCluster("a", "dev", "", "", 3, 4, "16Gi", "100Gi"),
		acUsageCluster("b", "prod", "", "", 6, 4, "8Gi", "100Gi"),
	}
	rep := policy.TeamQuota(team, cs)
	b, _ := json.Marshal(rep)
	want := `{"lines":[` +
		`{"resource":"clusters","used":"2","limit":"20","utilization":10,"status":"OK"},` +
		`{"resource":"nodes","used":"9","limit":"10","utilization":90,"status":"Warning"},` +
		`{"resource":"cpu","used":"36","limit":"40","utilization":90,"status":"Warning"},` +
		`{"resource":"memory","used":"96Gi"},` +
		`{"resource":"storage","used":"900Gi"}],"status":"Warning"}`
	if string(b) != want {
		t.Fatalf("TeamQuota:\n got %s\nwant %s", b, want)
	}
	team.Spec.ResourceLimits.MaxClusters = acI32(0)
	rep = policy.TeamQuota(team, cs)
	if l := rep.Lines[0]; l.Limit != "0" || l.Utilization != nil || l.Status != "Exceeded" || rep.Status != "Exceeded" {
		t.Fatalf("maxClusters 0 line: %+v %s", l, rep.Status)
	}
	rep = policy.TeamQuota(nil, nil)
	if len(rep.Lines) != 5 || rep.Status != "OK" || rep.Lines[2].Used != "0" || rep.Lines[2].Limit != "" {
		t.Fatalf("no team: %+v", rep)
	}
	// Counts stay integers in the thousands (a quantity would print 2000 as "2k").
	many := make([]v1alpha1.TenantCluster, 2000)
	for i := range many {
		many[i] = acUsageCluster(fmt.Sprintf("c-%d", i), "", "", "", 1, 4, "1Gi", "10Gi")
	}
	team.Spec.ResourceLimits.MaxClusters = acI32(3000)
	team.Spec.ResourceLimits.MaxTotalNodes = acI32(5000)
	rep = policy.TeamQuota(team, many)
	if c, n := rep.Lines[0], rep.Lines[1]; c.Used != "2000" || c.Limit != "3000" || n.Used != "2000" || n.Limit != "5000" {
		t.Fatalf("counts in the thousands: %+v %+v", c, n)
	}
}
