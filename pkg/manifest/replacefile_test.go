package manifest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// ReplaceFile puts a file written in place (its documents as many, clusters and other
// objects in the same order) where it was, each cluster held whole from now on; a file
// whose documents changed shape goes after the others. Either way the set holds exactly
// the file's new objects, in the order read, and nothing of the old.
func TestReplaceFile(t *testing.T) {
	for _, records := range []bool{false, true} {
		manifesttest.InMode(t, &WholeBytes, records)
		dir := t.TempDir()
		if _, err := manifesttest.Generate(dir, 2, 4); err != nil {
			t.Fatal(err)
		}
		set, err := Load([]string{dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		i := set.Clusters.Len() / 2
		file := set.Clusters.At(i).Source.File
		name := set.Clusters.At(i).Name
		decode := func(text string) []Object {
			objs, err := Decode(file, []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			return objs
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		workers := regexp.MustCompile(`(?m)^  workers:\n    replicas: \d+$`)
		edited := workers.ReplaceAllString(string(data), "  workers:\n    replicas: 9")
		if edited == string(data) {
			t.Fatalf("%s has no workers' replicas to edit", filepath.Base(file))
		}
		before := refsOf(set)
		set.ReplaceFile(file, decode(edited))
		if got := refsOf(set); got != before {
			t.Fatalf("records %v: in place, the set's order changed:\n%s\nwant\n%s", records, got, before)
		}
		if !set.Clusters.Held(i) || set.Clusters.At(i).Name != name || set.Clusters.At(i).Replicas != 9 {
			t.Fatalf("records %v: cluster %d after the edit: %+v, held %v", records, i, *set.Clusters.At(i), set.Clusters.Held(i))
		}
		o, err := set.Clusters.Get(i)
		if err != nil || o.Obj.(*v1alpha1.TenantCluster).Spec.Workers.Replicas != 9 {
			t.Fatalf("records %v: Get after the edit: %v", records, err)
		}

		// Another document added to the file: its objects go after the others.
		grown := edited + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: added, namespace: x}\n"
		n, nc := len(set.Objects), set.Clusters.Len()
		set.ReplaceFile(file, decode(grown))
		if len(set.Objects) != n+1 || set.Clusters.Len() != nc || set.Objects[n].Name != "added" {
			t.Fatalf("records %v: after a document was added: %d objects (want %d), %d clusters (want %d)", records, len(set.Objects), n+1, set.Clusters.Len(), nc)
		}
		if j := set.Clusters.Find(set.Clusters.At(nc-1).Namespace, name); j != nc-1 || set.Clusters.At(j).Source.File != file {
			t.Errorf("records %v: the file's cluster is at %d, want the last (%d)", records, j, nc-1)
		}
	}
}

// refsOf is the set's objects in the order read, a line each.
func refsOf(s *Set) string {
	var b strings.Builder
	for r := range s.Refs() {
		b.WriteString(r.Kind + " " + r.Namespace + "/" + r.Name + " " + filepath.Base(r.Source.File) + "\n")
	}
	return b.String()
}
