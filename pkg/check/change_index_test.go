package check

import (
	"fmt"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

func clusterSet(keys ...[2]string) *manifest.Set {
	var objs []manifest.Object
	for _, k := range keys {
		tc := &v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Namespace: k[0], Name: k[1]}}
		objs = append(objs, manifest.Object{Kind: "TenantCluster", Namespace: k[0], Name: k[1], Obj: tc})
	}
	return manifest.NewSet(objs)
}

// wholeTree is newTree with its clusters read whole, as a change reads them.
func wholeTree(t *testing.T, set *manifest.Set) *tree {
	t.Helper()
	tr := newTree(set, false)
	if unread := tr.readWhole(tr.clusters); len(unread) > 0 {
		t.Fatal(unread)
	}
	return tr
}

// The change's lookups by namespace and its pairing of base and head find what a pass over
// every cluster finds, with namespaces that sort next to each other ("a", "a-b", and a
// hostile "a/b" whose keys share the prefix "a/"), and a key written twice.
func TestChangeIndexesAsScans(t *testing.T) {
	base := wholeTree(t, clusterSet([2]string{"a", "x"}, [2]string{"a/b", "c"}, [2]string{"a", "d"}, [2]string{"a-b", "x"},
		[2]string{"b", "gone"}, [2]string{"a", "z"}, [2]string{"a", "z"}))
	head := wholeTree(t, clusterSet([2]string{"a", "x"}, [2]string{"a", "c"}, [2]string{"a/b", "c"}, [2]string{"a-b", "x"},
		[2]string{"a", "z"}, [2]string{"c", "new"}))
	for _, tr := range []*tree{base, head} {
		for _, ns := range []string{"a", "a-b", "a/b", "b", "c", "", "nothing"} {
			var want []v1alpha1.TenantCluster
			for _, c := range tr.clusters {
				if c.c.Namespace == ns {
					want = append(want, *c.c)
				}
			}
			if got := tr.namespace(ns); !reflect.DeepEqual(got, want) {
				t.Errorf("namespace(%q) = %v, want %v", ns, names(got), names(want))
			}
		}
	}
	c := &change{base: base, head: head}
	added, changed, deleted, _ := c.diffClusters()
	var wantAdded, wantUnchanged, wantDeleted []string
	for _, hc := range head.clusters {
		if _, ok := base.clusterByKey(hc.key()); ok {
			wantUnchanged = append(wantUnchanged, hc.key()) // no spec differs here
		} else {
			wantAdded = append(wantAdded, hc.key())
		}
	}
	for _, bc := range base.clusters {
		if _, ok := head.clusterByKey(bc.key()); !ok {
			wantDeleted = append(wantDeleted, bc.key())
		}
	}
	for _, l := range []struct {
		name      string
		got, want []string
	}{{"added", clusterKeys(added), wantAdded}, {"changed", clusterKeys(changed), nil},
		{"unchanged", clusterKeys(c.unchanged), wantUnchanged}, {"deleted", clusterKeys(deleted), wantDeleted}} {
		if fmt.Sprint(l.got) != fmt.Sprint(l.want) {
			t.Errorf("%s: %v, want %v", l.name, l.got, l.want)
		}
	}
	if fmt.Sprint(wantAdded) != "[a/c c/new]" || fmt.Sprint(wantDeleted) != "[a/d b/gone]" {
		t.Fatalf("the fixture changed: added %v, deleted %v", wantAdded, wantDeleted)
	}
}

func names(list []v1alpha1.TenantCluster) []string {
	var out []string
	for _, c := range list {
		out = append(out, c.Namespace+"/"+c.Name)
	}
	return out
}

func clusterKeys(list []*cluster) []string {
	var out []string
	for _, c := range list {
		out = append(out, c.key())
	}
	return out
}
