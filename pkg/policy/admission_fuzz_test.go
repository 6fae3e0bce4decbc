package policy_test

import (
	"encoding/binary"
	"math/rand"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// acBytes hands out fuzz bytes; once exhausted it returns zeros.
type acBytes struct {
	b []byte
	i int
}

func (r *acBytes) next() byte {
	if r.i >= len(r.b) {
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *acBytes) pick(n int) int { return int(r.next()) % n }

func (r *acBytes) i32() int32 {
	var buf [4]byte
	for i := range buf {
		buf[i] = r.next()
	}
	return int32(binary.LittleEndian.Uint32(buf[:]))
}

var acQuantityPool = []string{
	"16Gi", "8Gi", "100Gi", "1500m", "1.5Gi", "0", "-1Gi", "1e3", "100M", "0.1Gi", "8Ei", "1k",
	"512Mi", "", "-512Mi", "3", "1.000", "9223372036854775807", "7", "-7", "1G", "2Ti",
}

func (r *acBytes) quantity(extra string) resource.Quantity {
	i := r.pick(len(acQuantityPool) + 1)
	s := extra
	if i < len(acQuantityPool) {
		s = acQuantityPool[i]
	}
	if s == "" {
		return resource.Quantity{}
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}
	}
	return q
}

func (r *acBytes) optQuantity(extra string) *resource.Quantity {
	if r.pick(3) == 0 {
		return nil
	}
	q := r.quantity(extra)
	return &q
}

// small counts keep the webhook's int32 arithmetic (and loops) in range, so the oracle applies.
func (r *acBytes) optI32(limit int) *int32 {
	if r.pick(3) == 0 {
		return nil
	}
	v := int32(r.pick(limit))
	return &v
}

var (
	acFuzzEnvs   = []string{"", "dev", "prod", "staging", "Dev"}
	acFuzzPeople = []string{"", "alice@example.com", "bob@example.com", "carol@example.com", "Carol@Example.com", "dave@example.com",
		" carol@example.com", "bob@example.com ", "kate@example.com", "\u212aate@example.com"} // untrimmed and Unicode-folded spellings, as the server compares them
	acFuzzNames = []string{"new", "c1", "c2", "c3", "c4", "c5"}
)

// acFuzzCluster builds a cluster; raw allows any replicas/cpu (no oracle comparison then).
func acFuzzCluster(r *acBytes, name string, mem, disk string, raw bool) v1alpha1.TenantCluster {
	c := v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "payments"}}
	if env := acFuzzEnvs[r.pick(len(acFuzzEnvs))]; env != "" || r.pick(2) == 0 {
		c.Labels = map[string]string{v1alpha1.LabelEnvironment: env}
	}
	if r.pick(4) != 0 {
		c.Annotations = map[string]string{}
		if p := acFuzzPeople[r.pick(len(acFuzzPeople))]; p != "" {
			c.Annotations[v1alpha1.AnnotationCreatorEmail] = p
		}
		if p := acFuzzPeople[r.pick(len(acFuzzPeople))]; p != "" {
			c.Annotations[v1alpha1.AnnotationOwner] = p
		}
		if r.pick(3) == 0 {
			c.Annotations[v1alpha1.AnnotationMigration] = []string{"true", "false", "True"}[r.pick(3)]
		}
	}
	if r.pick(5) != 0 {
		c.Spec.TeamRef = &v1alpha1.LocalObjectReference{Name: []string{"payments", "billing"}[r.pick(2)]}
	}
	if r.pick(4) != 0 {
		c.Spec.ProviderConfigRef = &v1alpha1.ProviderReference{Name: []string{"pc", "other"}[r.pick(2)]}
	}
	c.Spec.KubernetesVersion = []string{"v1.29.3", "v1.30.4", "v1.30.5", "v1.31.0", "", "1.29.9"}[r.pick(6)]
	if raw {
		c.Spec.Workers.Replicas = r.i32()
		c.Spec.Workers.MachineTemplate.CPU = r.i32()
	} else {
		c.Spec.Workers.Replicas = int32(r.pick(8)) - 1
		c.Spec.Workers.MachineTemplate.CPU = int32(r.pick(10)) - 1
	}
	c.Spec.Workers.MachineTemplate.Memory = r.quantity(mem)
	c.Spec.Workers.MachineTemplate.DiskSize = r.quantity(disk)
	if r.pick(6) == 0 {
		now := metav1.Now()
		c.DeletionTimestamp = &now
	}
	return c
}

// acFuzzRequest builds a request from bytes and strings; ok is false when raw numbers were
// used, so that the oracle's int32 arithmetic and replica loops are not comparable.
func acFuzzRequest(data []byte, mem, disk, limit string) (req policy.ClusterRequest, comparable bool) {
	r := &acBytes{b: data}
	raw := r.pick(8) == 0
	req.Operation = []policy.Operation{policy.Create, policy.Update, policy.Update, policy.Delete, ""}[r.pick(5)]
	c := acFuzzCluster(r, "new", mem, disk, raw)
	if r.pick(8) != 0 {
		req.Cluster = &c
	}
	if req.Operation == policy.Update && r.pick(5) != 0 {
		old := acFuzzCluster(r, "new", mem, disk, raw)
		if r.pick(2) == 0 { // mostly a small variation of the new object
			old = *c.DeepCopy()
			switch r.pick(5) {
			case 0:
				old.Spec.Workers.Replicas = int32(r.pick(8)) - 1
			case 1:
				delete(old.Labels, v1alpha1.LabelEnvironment)
			case 2:
				if old.Annotations != nil {
					old.Annotations[v1alpha1.AnnotationCreatorEmail] = acFuzzPeople[r.pick(len(acFuzzPeople))]
				}
			case 3:
				old.Spec.KubernetesVersion = "v1.28.0"
			}
		}
		req.Old = &old
	}
	for n := r.pick(10); n > 0; n-- {
		req.Siblings = append(req.Siblings, acFuzzCluster(r, acFuzzNames[r.pick(len(acFuzzNames))], mem, disk, raw))
	}
	if r.pick(5) != 0 {
		t := &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: "payments"}}
		for _, e := range []string{"dev", "prod", "staging"} {
			if r.pick(2) == 0 {
				continue
			}
			es := v1alpha1.EnvironmentSpec{Name: e}
			if r.pick(3) != 0 {
				es.Limits = &v1alpha1.EnvironmentLimits{MaxClusters: r.optI32(5), MaxClustersPerMember: r.optI32(4)}
			}
			t.Spec.Environments = append(t.Spec.Environments, es)
		}
		if r.pick(4) != 0 {
			l := &v1alpha1.TeamResourceLimits{
				MaxClusters:        r.optI32(12),
				MaxNodesPerCluster: r.optI32(8),
				MaxTotalNodes:      r.optI32(40),
				MaxCPUCores:        r.optQuantity(limit),
				MaxMemory:          r.optQuantity(limit),
				MaxStorage:         r.optQuantity(limit),
			}
			if r.pick(3) == 0 {
				l.AllowedKubernetesVersions = []string{"1.29.x", "v1.30.4"}
			}
			if r.pick(3) == 0 {
				l.AllowedProviders = []string{"nutanix", "Harvester"}[:1+r.pick(2)]
			}
			if r.pick(3) == 0 {
				l.AllowedAddons = []string{"cilium", "istio"}
			}
			if r.pick(3) == 0 {
				l.DeniedAddons = []string{"istio"}
			}
			t.Spec.ResourceLimits = l
		}
		req.Team = t
	}
	if r.pick(4) != 0 {
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "pc", Namespace: "butler-system"}}
		pc.Spec.Provider = []string{"harvester", "nutanix", "proxmox"}[r.pick(3)]
		switch r.pick(4) {
		case 1:
			pc.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam, TeamRef: &v1alpha1.LocalObjectReference{Name: "payments"}}
		case 2:
			pc.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam, TeamRef: &v1alpha1.LocalObjectReference{Name: "billing"}}
		case 3:
			pc.Spec.Scope = &v1alpha1.ProviderScope{Type: v1alpha1.ScopeTeam}
		}
		if r.pick(2) == 0 {
			pc.Spec.Limits = &v1alpha1.ProviderLimits{MaxClustersPerTeam: r.optI32(8), MaxNodesPerTeam: r.optI32(40)}
		}
		req.ProviderConfig = pc
	}
	req.Username = acFuzzPeople[r.pick(len(acFuzzPeople))]
	for n := r.pick(4); n > 0; n-- {
		req.Addons = append(req.Addons, []string{"cilium", "istio@1.22", "cert-manager", "istio", " "}[r.pick(5)])
	}
	ccpFuzzAdd(r, &req)
	return req, !raw
}

func acErrString(err error) string {
	if err == nil {
		return "<allowed>"
	}
	return err.Error()
}

// acCheckDecision asserts invariants that hold for any request.
func acCheckDecision(t *testing.T, req policy.ClusterRequest, d policy.Decision) {
	t.Helper()
	if d.Allowed() != (d.Err() == nil) {
		t.Fatalf("Allowed()=%v but Err()=%v", d.Allowed(), d.Err())
	}
	denied := 0
	for _, c := range d.Checks {
		if c.Rule == "" {
			t.Fatalf("check without rule: %+v", c)
		}
		if !c.Allowed {
			if c.Message == "" {
				t.Fatalf("denied check without message: %+v", c)
			}
			if c.Message != d.Violations[denied].Error.Error() || c.Rule != d.Violations[denied].Rule {
				t.Fatalf("check %+v does not match violation %d %v", c, denied, d.Violations[denied].Error)
			}
			denied++
		}
	}
	if denied != len(d.Violations) {
		t.Fatalf("%d denied checks for %d violations", denied, len(d.Violations))
	}
}

func FuzzAdmitCluster(f *testing.F) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 64; i++ {
		b := make([]byte, 200)
		rng.Read(b)
		f.Add(b, "16Gi", "100Gi", "480Gi")
	}
	f.Add([]byte{}, "", "", "")
	f.Add([]byte{1, 1, 1, 1}, "-1", "1e18", "0")
	f.Add([]byte{0xff, 0, 0xff}, "0.000000001", "9223372036854775807", "-5")
	f.Fuzz(func(t *testing.T, data []byte, mem, disk, limit string) {
		req, comparable := acFuzzRequest(data, mem, disk, limit)
		var before []v1alpha1.TenantCluster
		for i := range req.Siblings {
			before = append(before, *req.Siblings[i].DeepCopy())
		}
		d := policy.AdmitCluster(req)
		acCheckDecision(t, req, d)
		for i := range before {
			if before[i].Spec.Workers.MachineTemplate.Memory.Cmp(req.Siblings[i].Spec.Workers.MachineTemplate.Memory) != 0 {
				t.Fatalf("sibling %d memory changed", i)
			}
		}
		if comparable {
			if got, want := acErrString(d.Err()), acErrString(acOracle(req)); got != want {
				t.Fatalf("AdmitCluster and the webhook transcription disagree\n got: %s\nwant: %s", got, want)
			}
		}
		// the usage helpers must not panic on the same inputs either
		policy.SumUsage(req.Siblings, nil)
		policy.TeamQuota(req.Team, req.Siblings)
		policy.EnvironmentUsageOf(req.Team, "dev", req.Siblings)
	})
}

// TestAdmitClusterMatchesWebhookTranscription runs many generated requests through both
// AdmitCluster and the literal webhook transcription and requires identical errors.
func TestAdmitClusterMatchesWebhookTranscription(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	n := 30000
	if testing.Short() {
		n = 3000
	}
	mems := []string{"16Gi", "4Gi", "1500m", "0.5Gi", "-2Gi", "1e9", "", "12345"}
	denied := 0
	for i := 0; i < n; i++ {
		b := make([]byte, 256)
		rng.Read(b)
		req, comparable := acFuzzRequest(b, mems[rng.Intn(len(mems))], mems[rng.Intn(len(mems))], []string{"480Gi", "40", "100Gi", "1e12", "0"}[rng.Intn(5)])
		d := policy.AdmitCluster(req)
		acCheckDecision(t, req, d)
		if !comparable {
			continue
		}
		got, want := acErrString(d.Err()), acErrString(acOracle(req))
		if got != want {
			t.Fatalf("case %d: disagreement\n got: %s\nwant: %s", i, got, want)
		}
		if !d.Allowed() {
			denied++
		}
	}
	if denied < n/10 {
		t.Fatalf("generator too permissive: only %d denials", denied)
	}
}

// TestNeedsSiblings: whenever a request says it does not need the siblings, its decision
// (violations and checks) is the same without them. The generator must produce enough
// such requests with siblings, and enough growing updates that do need them, for the test
// to mean something.
func TestNeedsSiblings(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	skipped, needed := 0, 0
	for i := 0; i < 20000; i++ {
		b := make([]byte, 256)
		rng.Read(b)
		req, _ := acFuzzRequest(b, "16Gi", "100Gi", "480Gi")
		if req.NeedsSiblings() {
			if req.Operation == policy.Update {
				needed++
			}
			continue
		}
		if len(req.Siblings) == 0 {
			continue
		}
		with := policy.AdmitCluster(req)
		req.Siblings = nil
		without := policy.AdmitCluster(req)
		if !reflect.DeepEqual(with, without) {
			t.Fatalf("case %d: NeedsSiblings is false but the siblings change the decision\nwith:    %+v\nwithout: %+v", i, with, without)
		}
		skipped++
	}
	if skipped < 1000 || needed < 100 {
		t.Fatalf("generator too narrow: %d requests compared without siblings, %d growing updates", skipped, needed)
	}
}

func TestNeedsSiblingsCases(t *testing.T) {
	base := &v1alpha1.TenantCluster{}
	base.Spec.Workers.Replicas = 3
	base.Spec.Workers.MachineTemplate.CPU = 4
	base.Spec.Workers.MachineTemplate.Memory = resource.MustParse("16Gi")
	base.Spec.Workers.MachineTemplate.DiskSize = resource.MustParse("100Gi")
	with := func(f func(c *v1alpha1.TenantCluster)) *v1alpha1.TenantCluster {
		c := base.DeepCopy()
		f(c)
		return c
	}
	for _, tc := range []struct {
		name string
		req  policy.ClusterRequest
		want bool
	}{
		{"create", policy.ClusterRequest{Operation: policy.Create, Cluster: base}, true},
		{"create by default", policy.ClusterRequest{Cluster: base}, true},
		{"delete", policy.ClusterRequest{Operation: policy.Delete, Cluster: base}, false},
		{"migration label and annotation", policy.ClusterRequest{Operation: policy.Update, Old: base, Cluster: with(func(c *v1alpha1.TenantCluster) {
			c.Labels = map[string]string{v1alpha1.LabelEnvironment: "prod"}
			c.Annotations = map[string]string{v1alpha1.AnnotationMigration: "true"}
		})}, false},
		{"scale down", policy.ClusterRequest{Operation: policy.Update, Old: base, Cluster: with(func(c *v1alpha1.TenantCluster) { c.Spec.Workers.Replicas = 2 })}, false},
		{"scale up", policy.ClusterRequest{Operation: policy.Update, Old: base, Cluster: with(func(c *v1alpha1.TenantCluster) { c.Spec.Workers.Replicas = 4 })}, true},
		{"more CPU", policy.ClusterRequest{Operation: policy.Update, Old: base, Cluster: with(func(c *v1alpha1.TenantCluster) { c.Spec.Workers.MachineTemplate.CPU = 8 })}, true},
		{"more memory", policy.ClusterRequest{Operation: policy.Update, Old: base, Cluster: with(func(c *v1alpha1.TenantCluster) {
			c.Spec.Workers.MachineTemplate.Memory = resource.MustParse("32Gi")
		})}, true},
		{"bigger disk", policy.ClusterRequest{Operation: policy.Update, Old: base, Cluster: with(func(c *v1alpha1.TenantCluster) {
			c.Spec.Workers.MachineTemplate.DiskSize = resource.MustParse("200Gi")
		})}, true},
		{"fewer but bigger workers, same CPU", policy.ClusterRequest{Operation: policy.Update, Old: base, Cluster: with(func(c *v1alpha1.TenantCluster) {
			c.Spec.Workers.Replicas, c.Spec.Workers.MachineTemplate.CPU = 1, 12
			c.Spec.Workers.MachineTemplate.Memory = resource.MustParse("48Gi")
			c.Spec.Workers.MachineTemplate.DiskSize = resource.MustParse("300Gi")
		})}, false},
		{"update without old", policy.ClusterRequest{Operation: policy.Update, Cluster: base}, false},
	} {
		if got := tc.req.NeedsSiblings(); got != tc.want {
			t.Errorf("%s: NeedsSiblings() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
