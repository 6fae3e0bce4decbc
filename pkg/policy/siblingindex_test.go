package policy_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// TestSiblingIndexDecidesAsSiblings: AdmitCluster with a SiblingIndex decides, checks and
// words every message as it does with the clusters themselves, on the generated requests
// of the transcription test, the index built the way a cache builds it (clusters set,
// replaced and deleted in any order).
func TestSiblingIndexDecidesAsSiblings(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	n := 5000
	if testing.Short() {
		n = 1000
	}
	mems := []string{"16Gi", "4Gi", "16G", "1500m", "0.5Gi", "-2Gi", "1e9", "", "12345", "0"}
	fast := 0
	for i := 0; i < n; i++ {
		b := make([]byte, 256)
		rng.Read(b)
		req, _ := acFuzzRequest(b, mems[rng.Intn(len(mems))], mems[rng.Intn(len(mems))], []string{"480Gi", "40", "100Gi", "1e12", "0"}[rng.Intn(5)])
		// A namespace holds one cluster per name; the index holds the last one set.
		seen := map[string]bool{}
		var sibs []v1alpha1.TenantCluster
		for j := len(req.Siblings) - 1; j >= 0; j-- {
			if !seen[req.Siblings[j].Name] {
				seen[req.Siblings[j].Name] = true
				sibs = append(sibs, req.Siblings[j])
			}
		}
		// ... listed by name, as the API server lists them.
		slices.SortFunc(sibs, func(a, b v1alpha1.TenantCluster) int { return strings.Compare(a.Name, b.Name) })
		req.Siblings = sibs
		x := policy.NewSiblingIndex()
		for j := range req.Siblings {
			if rng.Intn(3) == 0 { // an earlier shape, replaced
				old := req.Siblings[(j+1)%len(req.Siblings)].DeepCopy()
				old.Name = req.Siblings[j].Name
				x.Set(old)
			}
			if rng.Intn(3) == 0 { // a cluster since deleted
				gone := req.Siblings[j].DeepCopy()
				gone.Name = fmt.Sprintf("gone-%d", j)
				x.Set(gone)
				defer x.Delete(gone.Name)
			}
		}
		for j := range req.Siblings {
			c := req.Siblings[j]
			x.Set(&c)
		}
		for j := range req.Siblings {
			x.Delete(fmt.Sprintf("gone-%d", j))
		}
		want := policy.AdmitCluster(req)
		ireq := req
		ireq.Siblings = nil
		ireq.SiblingIndex = x
		got := policy.AdmitCluster(ireq)
		if acErrString(got.Err()) != acErrString(want.Err()) || !reflect.DeepEqual(got.Checks, want.Checks) {
			t.Fatalf("request %d: with the index\n got: %s\n %+v\nwith the clusters\nwant: %s\n %+v", i, acErrString(got.Err()), got.Checks, acErrString(want.Err()), want.Checks)
		}
		if x.Len() != len(req.Siblings) {
			t.Fatalf("request %d: index holds %d clusters, want %d", i, x.Len(), len(req.Siblings))
		}
		fast++
	}
	if fast == 0 {
		t.Fatal("no request compared")
	}
}

// TestSiblingIndexCounts: the figures a cap compares, kept through sets and deletes, with
// environments compared by their exact label and owners by strings.EqualFold, untrimmed, as
// the server compares them.
func TestSiblingIndexCounts(t *testing.T) {
	x := policy.NewSiblingIndex()
	mk := func(name, env, owner string, replicas int32) *v1alpha1.TenantCluster {
		c := &v1alpha1.TenantCluster{}
		c.Name, c.Namespace = name, "team-payments"
		c.Labels = map[string]string{v1alpha1.LabelEnvironment: env}
		c.Annotations = map[string]string{v1alpha1.AnnotationCreatorEmail: owner}
		c.Spec.Workers.Replicas = replicas
		return c
	}
	x.Set(mk("a", "dev", "Ann@example.com", 2))
	x.Set(mk("b", "DEV", " ann@example.com", 3))
	x.Set(mk("c", "prod", "bob@example.com", 1))
	x.Set(mk("c", "dev", "bob@example.com", 1)) // relabelled
	x.Set(mk("e", "dev", "ANN@EXAMPLE.COM", 1))
	x.Set(mk("f", "dev", " ann@example.com", 1)) // untrimmed: not ann's
	x.Delete("nothing")
	four := int32(4)
	team := &v1alpha1.Team{}
	team.Name = "payments"
	team.Spec.Environments = []v1alpha1.EnvironmentSpec{{Name: "dev", Limits: &v1alpha1.EnvironmentLimits{MaxClusters: &four, MaxClustersPerMember: &four}}}
	req := policy.ClusterRequest{
		Operation:    policy.Create,
		Cluster:      mk("d", "dev", "ann@example.com", 1),
		Team:         team,
		SiblingIndex: x,
		Username:     "ann@example.com",
	}
	req.Cluster.Spec.TeamRef = &v1alpha1.LocalObjectReference{Name: "payments"}
	usage := func(rule string) string {
		for _, c := range policy.AdmitCluster(req).Checks {
			if c.Rule == rule {
				return c.Usage
			}
		}
		return "<none>"
	}
	if got := usage(policy.RuleEnvMaxClusters); got != "4" { // a, c, e, f; not DEV's b
		t.Errorf("dev holds %s clusters, want 4", got)
	}
	if got := usage(policy.RuleMemberMaxClusters); got != "2" { // a and e
		t.Errorf("ann owns %s in dev, want 2", got)
	}
	x.Delete("e")
	if got := usage(policy.RuleMemberMaxClusters); got != "1" {
		t.Errorf("after a delete ann owns %s in dev, want 1", got)
	}
}
