package crdexplain

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestFindKindByAnyName(t *testing.T) {
	for _, name := range []string{"TenantCluster", "tenantcluster", "tenantclusters", "tc", "TC", "tenantclusters.butler.butlerlabs.dev"} {
		k, err := FindKind(name)
		if err != nil || k.Kind != "TenantCluster" || k.Version != "v1alpha1" {
			t.Errorf("%q: %v, %v", name, k, err)
		}
	}
	_, err := FindKind("tenantcluser")
	var u *UnknownError
	if !errors.As(err, &u) || !reflect.DeepEqual(u.Suggestions, []string{"TenantCluster"}) {
		t.Errorf("a typo: %v %+v", err, u)
	}
	if _, err := FindKind("tenantclusters.example.com"); err == nil {
		t.Error("another group's kind was found")
	}
}

func TestFindField(t *testing.T) {
	k, _ := FindKind("tc")
	f, err := FindField(k, "spec.workers.replicas")
	if err != nil || TypeName(f.Schema) != "integer" || !f.Required {
		t.Fatalf("%+v, %v", f, err)
	}
	_, err = FindField(k, "spec.workers.replica")
	var u *UnknownError
	if !errors.As(err, &u) || u.Name != "spec.workers.replica" || !reflect.DeepEqual(u.Suggestions, []string{"replicas"}) {
		t.Errorf("a typo: %v %+v", err, u)
	}
	tm, _ := FindKind("teams")
	if f, err := FindField(tm, "spec.environments.limits"); err != nil || TypeName(f.Schema) != "Object" {
		t.Errorf("a list's fields are its items': %+v, %v", f, err)
	}
}

// Every field a rule or a default is given for exists, and every section cited is one of
// docs/rules.md's headings.
func TestRulesCiteFieldsAndSections(t *testing.T) {
	doc, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, l := range strings.Split(string(doc), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " "); ok && strings.HasPrefix(l, "#") {
			headings["§"+h] = true
		}
	}
	for key, rs := range rules {
		kind, path, _ := strings.Cut(key, " ")
		k, err := FindKind(kind)
		if err == nil {
			_, err = FindField(k, path)
		}
		if err != nil {
			t.Errorf("%s: %v", key, err)
		}
		for _, r := range rs {
			if !headings[r.Section] {
				t.Errorf("%s cites %q, no heading of docs/rules.md", key, r.Section)
			}
		}
	}
	k, _ := FindKind("TenantCluster")
	for path := range defaulted {
		f, err := FindField(k, path)
		if err != nil {
			t.Errorf("defaulted %s: %v", path, err)
			continue
		}
		if _, _, ok := f.Default(); !ok {
			t.Errorf("defaulted %s has no default", path)
		}
	}
}

func TestDefaultIsPolicys(t *testing.T) {
	k, _ := FindKind("TenantCluster")
	f, _ := FindField(k, "spec.workers.replicas")
	if v, src, ok := f.Default(); v != "1" || src != "built-in" || !ok {
		t.Errorf("replicas: %q %q %v", v, src, ok)
	}
	f, _ = FindField(k, "spec.kubernetesVersion")
	if v, src, ok := f.Default(); v != "" || src != "" || !ok {
		t.Errorf("kubernetesVersion: %q %q %v", v, src, ok)
	}
	f, _ = FindField(k, "spec.timeServers")
	if _, _, ok := f.Default(); ok {
		t.Error("timeServers defaulted")
	}
}

// TestSplitGroupQualified: a kind may carry its group, or its version and group, as
// kubectl explain takes them; what follows is the field's path, its case kept.
func TestSplitGroupQualified(t *testing.T) {
	for _, tc := range []struct{ arg, kind, path string }{
		{"tc.spec.workers", "TenantCluster", "spec.workers"},
		{"tenantclusters.butler.butlerlabs.dev", "TenantCluster", ""},
		{"tenantclusters.butler.butlerlabs.dev.spec", "TenantCluster", "spec"},
		{"tenantcluster.v1alpha1.butler.butlerlabs.dev.spec.workers.machineTemplate", "TenantCluster", "spec.workers.machineTemplate"},
		{"TenantCluster.Butler.ButlerLabs.dev.spec.kubernetesVersion", "TenantCluster", "spec.kubernetesVersion"},
		{"teams.butler.butlerlabs.dev.", "Team", ""},
		{"teams.butler.butlerlabs.devx", "Team", "butler.butlerlabs.devx"},
	} {
		k, path, err := Split(tc.arg)
		if err != nil {
			t.Errorf("Split(%q): %v", tc.arg, err)
			continue
		}
		if k.Kind != tc.kind || path != tc.path {
			t.Errorf("Split(%q) = %s, %q; want %s, %q", tc.arg, k.Kind, path, tc.kind, tc.path)
		}
	}
	if _, _, err := Split("tenantcluster.v1beta1.butler.butlerlabs.dev.spec"); err == nil || err.Error() != "tenantcluster.butler.butlerlabs.dev has no version v1beta1: the tools carry v1alpha1" {
		t.Errorf("a version the tools do not carry: %v", err)
	}
	if k, err := FindKind("tenantcluster.v1alpha1.butler.butlerlabs.dev"); err != nil || k.Kind != "TenantCluster" {
		t.Errorf("FindKind with version and group: %v, %v", k, err)
	}
	if _, err := FindKind("tenantclusters.apps"); err == nil {
		t.Error("FindKind took a group the kind does not have")
	}
}
