package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// leanTree is a generated tree with the shapes a lean Load treats apart: a file of several
// documents (a cluster in the second), a List of clusters, a cluster on standard input.
func leanTree(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := manifesttest.Generate(dir, 3, 12); err != nil {
		t.Fatal(err)
	}
	multi := "# two clusters\n" + manifesttest.Cluster("team-00", "multi-a", 101) + "---\n" +
		manifesttest.Cluster("team-01", "multi-b", 102)
	list := "apiVersion: v1\nkind: List\nitems:\n" + indent(manifesttest.Cluster("team-02", "listed", 103))
	for name, text := range map[string]string{"multi.yaml": multi, "list.yaml": list} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, manifesttest.Cluster("team-00", "piped", 104)
}

// indent makes a document a list item.
func indent(doc string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(doc, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
			continue
		case i == 0 || b.Len() == 0:
			b.WriteString("- " + l + "\n")
		default:
			b.WriteString("  " + l + "\n")
		}
	}
	return b.String()
}

// A lean Load keeps records for the clusters of its files, and each reads again into the
// object, lines and source the whole Load gives.
func TestLeanRecordsReadAgain(t *testing.T) {
	dir, piped := leanTree(t)
	whole, err := Load([]string{dir, Stdin}, strings.NewReader(piped))
	if err != nil {
		t.Fatal(err)
	}
	lean, err := LoadWith([]string{dir, Stdin}, strings.NewReader(piped), Options{Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(lean.Objects) != len(whole.Objects) {
		t.Fatalf("lean Load: %d objects, whole: %d", len(lean.Objects), len(whole.Objects))
	}
	records := 0
	for i := range lean.Objects {
		l, w := &lean.Objects[i], &whole.Objects[i]
		if l.Source != w.Source || l.Name != w.Name || l.Namespace != w.Namespace || l.Kind != w.Kind {
			t.Fatalf("object %d: lean %+v, whole %+v", i, l.Source, w.Source)
		}
		tc, cluster := w.Obj.(*v1alpha1.TenantCluster)
		wantRecord := cluster && l.Source.File != Stdin && l.Source.Item == 0
		if (l.Record != nil) != wantRecord {
			t.Fatalf("%s: record %v, want %v", l.Source, l.Record != nil, wantRecord)
		}
		if l.Record == nil {
			if !reflect.DeepEqual(l.Obj, w.Obj) {
				t.Errorf("%s: kept object differs", l.Source)
			}
			continue
		}
		records++
		if l.Obj != nil || l.lines != nil {
			t.Errorf("%s: a record keeps its object or lines", l.Source)
		}
		got := recordOf(tc, l.Record.span, l.Record.from)
		if !reflect.DeepEqual(got, l.Record) || got.Memory != l.Record.Memory {
			t.Errorf("%s: record %+v, want %+v", l.Source, l.Record, got)
		}
		full, err := l.Full()
		if err != nil {
			t.Fatal(err)
		}
		if full.Source != w.Source || !reflect.DeepEqual(full.Obj, w.Obj) || packedLines(full.lines) != packedLines(w.lines) {
			t.Errorf("%s: read again differs from the whole Load's", l.Source)
		}
		for _, p := range []string{"spec.workers.replicas", "metadata.labels", "spec.controlPlane.resources.apiServer.limits.cpu", "spec.timeServers[2]"} {
			if full.Line(p) != w.Line(p) {
				t.Errorf("%s: line of %s %d, want %d", l.Source, p, full.Line(p), w.Line(p))
			}
		}
		sib := l.Record.Sibling(l.Name, "ns")
		if sib.Name != tc.Name || sib.Spec.Workers.Replicas != tc.Spec.Workers.Replicas ||
			sib.Spec.Workers.MachineTemplate.Memory.String() != tc.Spec.Workers.MachineTemplate.Memory.String() ||
			sib.Environment() != tc.Environment() || sib.TeamName() != tc.TeamName() ||
			sib.Annotations[v1alpha1.AnnotationCreatorEmail] != tc.Annotations[v1alpha1.AnnotationCreatorEmail] {
			t.Errorf("%s: sibling %+v does not carry the record", l.Source, sib)
		}
	}
	if records != 14 {
		t.Errorf("%d records, want the 12 generated clusters and the two of multi.yaml", records)
	}
}

// A record's document is read again only as it was: a file changed since is an error
// naming it, never another object.
func TestLeanFileChanged(t *testing.T) {
	dir, _ := leanTree(t)
	lean, err := LoadWith([]string{dir}, nil, Options{Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	var o *Object
	for i := range lean.Objects {
		if lean.Objects[i].Name == "multi-b" {
			o = &lean.Objects[i]
		}
	}
	if o == nil || o.Record == nil {
		t.Fatal("no record for multi-b")
	}
	p := o.Source.File
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "replicas: ", "replicas:  ", 1)
	changed = strings.Replace(changed, "multi-b", "multi-c", 1)[:len(data)]
	if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Full(); err == nil || !strings.Contains(err.Error(), "multi.yaml: reading TenantCluster") || !strings.Contains(err.Error(), "changed while it was being read") {
		t.Errorf("got %v, want the file named as changed", err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Full(); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("got %v, want the file named as gone", err)
	}
}

// Listing the clusters of a lean set whole would miss its records: it is refused.
func TestLeanSetNotListedWhole(t *testing.T) {
	dir, _ := leanTree(t)
	lean, err := LoadWith([]string{dir}, nil, Options{Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "read with Object.Full") {
			t.Errorf("TenantClusters of a lean set: %v, want a panic", v)
		}
	}()
	lean.TenantClusters()
}

// packedLines is what a packed line index holds, for comparing the indexes of two Loads
// (whose path tables differ): its packed pairs and their base line.
func packedLines(l *lineIndex) string {
	v := reflect.ValueOf(l).Elem()
	return fmt.Sprintf("%x@%d", v.FieldByName("packed").Bytes(), v.FieldByName("base").Int())
}
