package livediff

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The diff program as kubectl builds it: diff -u -N by default; KUBECTL_EXTERNAL_DIFF
// split on single spaces, its program first, the directories next, then only the words
// that are flags (letters, digits, "-", "=").
func TestCommand(t *testing.T) {
	for _, tc := range []struct {
		external string
		prog     string
		args     []string
	}{
		{"", "diff", []string{"-u", "-N", "L", "M"}},
		{"meld", "meld", []string{"L", "M"}},
		{"colordiff -N -u", "colordiff", []string{"L", "M", "-N", "-u"}},
		{"/usr/bin/diff --color=always ../x $(rm) -y", "/usr/bin/diff", []string{"L", "M", "--color=always", "-y"}},
		{"diff  -u", "diff", []string{"L", "M", "-u"}}, // the empty word between two spaces is dropped
	} {
		prog, args := Command(tc.external, "L", "M")
		if prog != tc.prog || !reflect.DeepEqual(args, tc.args) {
			t.Errorf("%q: %s %q, want %s %q", tc.external, prog, args, tc.prog, tc.args)
		}
	}
}

// Fields names each differing leaf once, a key with a dot or slash in brackets, a list
// whole, a field on one side only too.
func TestFields(t *testing.T) {
	a := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"example.com/team": "a", "same": "x"}},
		"spec":     map[string]any{"replicas": int64(1), "list": []any{"a", "b"}, "gone": "x", "same": "y"},
	}
	b := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"example.com/team": "b", "same": "x"}},
		"spec":     map[string]any{"replicas": int64(2), "list": []any{"a", "c"}, "new": map[string]any{"x": "y"}, "same": "y"},
	}
	want := []string{"metadata.labels[example.com/team]", "spec.gone", "spec.list", "spec.new", "spec.replicas"}
	if got := Fields(a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("Fields = %q, want %q", got, want)
	}
	if got := Fields(a, a); len(got) != 0 || got == nil {
		t.Errorf("Fields of the same object = %#v, want an empty list", got)
	}
}

// Normalize drops what the server sets for itself and keeps the rest, without changing
// its argument.
func TestNormalize(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "X",
		"metadata": map[string]any{"name": "n", "resourceVersion": "7", "uid": "u", "generation": int64(2),
			"creationTimestamp": "t", "managedFields": []any{"m"}, "labels": map[string]any{"a": "b"}},
		"spec":   map[string]any{"x": "y"},
		"status": map[string]any{"phase": "Ready"},
	}}
	got := Normalize(u)
	want := map[string]any{"apiVersion": "v1", "kind": "X",
		"metadata": map[string]any{"name": "n", "labels": map[string]any{"a": "b"}},
		"spec":     map[string]any{"x": "y"}}
	if !reflect.DeepEqual(got.Object, want) {
		t.Errorf("Normalize = %v", got.Object)
	}
	if u.GetResourceVersion() != "7" {
		t.Error("Normalize changed its argument")
	}
}

// Files are named as kubectl names them: group (when there is one), version, kind,
// namespace, name.
func TestFileName(t *testing.T) {
	c := Change{GVK: schema.GroupVersionKind{Group: "butler.butlerlabs.dev", Version: "v1alpha1", Kind: "Team"}, Name: "payments"}
	if got := FileName(c); got != "butler.butlerlabs.dev.v1alpha1.Team..payments" {
		t.Errorf("FileName = %q", got)
	}
	c = Change{GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Namespace: "ns", Name: "c"}
	if got := FileName(c); got != "v1.ConfigMap.ns.c" {
		t.Errorf("FileName = %q", got)
	}
}

// WriteDirs writes each object into both directories under its name, a missing one not at
// all (diff -N takes it as empty), escapes quoted, and Remove removes both.
func TestWriteDirs(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	gvk := schema.GroupVersionKind{Group: "butler.butlerlabs.dev", Version: "v1alpha1", Kind: "Team"}
	merged := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"description": "x\x1b[2J\ay"}}}
	d, err := WriteDirs([]Change{{GVK: gvk, Name: "payments", Merged: merged}})
	if err != nil {
		t.Fatal(err)
	}
	name := FileName(Change{GVK: gvk, Name: "payments"})
	if _, err := os.Stat(filepath.Join(d.Live, name)); !os.IsNotExist(err) {
		t.Errorf("an added object has a live file: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(d.Merged, name))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); strings.ContainsAny(got, "\x1b\a") || !strings.Contains(got, `x\e[2J\ay`) {
		t.Errorf("escapes not quoted: %q", got)
	}
	d.Remove()
	for _, p := range []string{d.Live, d.Merged} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
}
