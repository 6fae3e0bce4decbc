package doctor

import (
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func props(fields map[string]apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	return &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: fields}
}

// A field only the server's CRD has is newer; one only the tools' has is older; nested
// and list fields are named by their path.
func TestFieldDiff(t *testing.T) {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	tools := props(map[string]apiextensionsv1.JSONSchemaProps{
		"kind": str,
		"spec": *props(map[string]apiextensionsv1.JSONSchemaProps{"name": str, "old": str}),
	})
	server := props(map[string]apiextensionsv1.JSONSchemaProps{
		"kind": str,
		"spec": *props(map[string]apiextensionsv1.JSONSchemaProps{
			"name": str,
			"envs": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: props(map[string]apiextensionsv1.JSONSchemaProps{"tier": str})}},
		}),
	})
	newer, older := fieldDiff(server, tools)
	if got := strings.Join(newer, " "); got != "spec.envs spec.envs[].tier" {
		t.Errorf("newer: %q", got)
	}
	if got := strings.Join(older, " "); got != "spec.old" {
		t.Errorf("older: %q", got)
	}
}

// The tools' own CRDs compare equal to themselves: a cluster with exactly them has no
// newer or older fields.
func TestKnownCRDsMatchThemselves(t *testing.T) {
	k, err := known()
	if err != nil {
		t.Fatal(err)
	}
	c := k["teams."+v1alpha1.GroupVersion.Group]
	if c == nil || k[stewardCRD] == nil {
		t.Fatalf("known CRDs: %d, without teams or Steward's", len(k))
	}
	v := servedVersion(c, "v1alpha1")
	if newer, older := fieldDiff(schemaOf(v), schemaOf(v)); len(newer)+len(older) > 0 {
		t.Errorf("%v %v", newer, older)
	}
	if firstOf([]string{"a", "b", "c", "d", "e", "f", "g"}) != "a, b, c, d, e and 2 more" {
		t.Error(firstOf([]string{"a", "b", "c", "d", "e", "f", "g"}))
	}
}

func TestStuckCluster(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(phase string, ago time.Duration) *v1alpha1.TenantCluster {
		c := &v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "t", CreationTimestamp: metav1.NewTime(now.Add(-48 * time.Hour))}}
		c.Status.Phase = phase
		lt := metav1.NewTime(now.Add(-ago))
		c.Status.LastTransitionTime = &lt
		return c
	}
	for _, tc := range []struct {
		c      *v1alpha1.TenantCluster
		stuck  bool
		detail string
	}{
		{at("Provisioning", 10*time.Minute), false, ""},
		{at("Provisioning", 2*time.Hour), true, "Provisioning for 2h0m0s (more than 30m0s)"},
		{at("Ready", 20*time.Hour), false, ""},
		{at("Failed", time.Minute), true, "phase Failed"},
		{at("Deleting", 31*time.Minute), true, "Deleting for 31m0s (more than 30m0s)"},
	} {
		c, stuck := stuckCluster(tc.c, now, DefaultStuckAfter)
		if stuck != tc.stuck || c.Detail != tc.detail || (stuck && (c.Verdict != Fail || c.Next == "")) {
			t.Errorf("%s: %v %+v", tc.c.Status.Phase, stuck, c)
		}
	}
}

func TestCheckProvider(t *testing.T) {
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "h", Namespace: "butler-system"}}
	if c := checkProvider(pc, false); c.Verdict != Warn {
		t.Errorf("no status: %+v", c)
	}
	if c := checkProvider(pc, true); c.Verdict != Skip {
		t.Errorf("no status, no controller: %+v", c)
	}
	pc.Status.Validated = true
	pc.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: "False", Reason: "Unreachable", Message: "dial tcp: timeout"}}
	c := checkProvider(pc, true)
	if c.Verdict != Fail || c.Detail != "Ready Unreachable: dial tcp: timeout" || !strings.Contains(c.Next, "provider validate h") {
		t.Errorf("not ready: %+v", c)
	}
	pc.Status.Ready = true
	pc.Status.Conditions = nil
	if c := checkProvider(pc, false); c.Verdict != Pass {
		t.Errorf("ready: %+v", c)
	}
}

func TestReportPassed(t *testing.T) {
	r := Report{Checks: []Check{{Verdict: Pass}, {Verdict: Warn}, {Verdict: Skip}}}.done()
	if !r.Passed {
		t.Error("warnings and skips failed the run")
	}
	r.Checks = append(r.Checks, Check{Verdict: Fail})
	if r.done().Passed {
		t.Error("a failure passed")
	}
}
