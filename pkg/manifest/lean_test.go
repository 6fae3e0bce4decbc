package manifest

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
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

func loadIn(t *testing.T, lean bool, paths []string, stdin string) *Set {
	t.Helper()
	manifesttest.InMode(t, &WholeBytes, lean)
	set, err := Load(paths, strings.NewReader(stdin))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// Whatever a Load keeps of its clusters, the set is the same: the same objects, the same
// counted fields, and each cluster whole with the object, lines and source the other way
// gives. A lean Load keeps records of the clusters of its files (not standard input's, not
// a List's items) and holds no object of them.
func TestClustersSameInBothModes(t *testing.T) {
	dir, piped := leanTree(t)
	paths := []string{dir, Stdin}
	whole, lean := loadIn(t, false, paths, piped), loadIn(t, true, paths, piped)
	if !sameObjects(lean.Objects, whole.Objects) {
		t.Fatalf("objects differ: lean %d, whole %d", len(lean.Objects), len(whole.Objects))
	}
	if lean.Clusters.Len() != 16 || whole.Clusters.Len() != 16 {
		t.Fatalf("lean %d clusters, whole %d, want 16", lean.Clusters.Len(), whole.Clusters.Len())
	}
	la, err := lean.All()
	if err != nil {
		t.Fatal(err)
	}
	wa, _ := whole.All()
	if len(la) != len(wa) || len(wa) != len(whole.Objects)+16 {
		t.Fatalf("All: lean %d, whole %d objects", len(la), len(wa))
	}
	for i := range wa {
		if la[i].Source != wa[i].Source || !reflect.DeepEqual(la[i].Obj, wa[i].Obj) {
			t.Errorf("All, object %d: lean %s, whole %s", i, la[i].Source, wa[i].Source)
		}
		if i > 0 && wa[i].Source.File == wa[i-1].Source.File && wa[i].Source.Doc < wa[i-1].Source.Doc {
			t.Errorf("All: %s after %s: not in the order read", wa[i].Source, wa[i-1].Source)
		}
	}
	records := 0
	for i := range whole.Clusters.Len() {
		le, we := &lean.Clusters.list[i], &whole.Clusters.list[i]
		if we.obj == nil {
			t.Fatalf("%s: a whole Load kept a record", we.Source)
		}
		wantRecord := le.Source.File != Stdin && le.Source.Item == 0
		if (le.obj == nil) != wantRecord {
			t.Fatalf("%s: record %v, want %v", le.Source, le.obj == nil, wantRecord)
		}
		if le.obj == nil {
			records++
		}
		lc, wc := *lean.Clusters.At(i), *whole.Clusters.At(i)
		if lc.Memory.Cmp(*wc.Memory) != 0 || lc.DiskSize.Cmp(*wc.DiskSize) != 0 {
			t.Errorf("%s: quantities differ", le.Source)
		}
		lc.Memory, lc.DiskSize, wc.Memory, wc.DiskSize = nil, nil, nil, nil
		if lc != wc || le.at != we.at {
			t.Errorf("cluster %d: lean %+v at %d, whole %+v at %d", i, lc, le.at, wc, we.at)
		}
		full, err := lean.Clusters.Get(i)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := whole.Clusters.Get(i)
		if full.Source != w.Source || !reflect.DeepEqual(full.Obj, w.Obj) || !reflect.DeepEqual(linesOf(full.lines), linesOf(w.lines)) {
			t.Errorf("%s: read again differs from the whole Load's", le.Source)
		}
		for _, p := range []string{"spec.workers.replicas", "metadata.labels", "spec.controlPlane.resources.apiServer.limits.cpu", "spec.timeServers[2]"} {
			if full.Line(p) != w.Line(p) {
				t.Errorf("%s: line of %s %d, want %d", le.Source, p, full.Line(p), w.Line(p))
			}
		}
		tc := w.Obj.(*v1alpha1.TenantCluster)
		sib := lean.Clusters.At(i).Sibling("ns", &SiblingMaps{})
		if sib.Name != tc.Name || sib.Spec.Workers.Replicas != tc.Spec.Workers.Replicas ||
			sib.Spec.Workers.MachineTemplate.Memory.String() != tc.Spec.Workers.MachineTemplate.Memory.String() ||
			sib.Environment() != tc.Environment() || sib.TeamName() != tc.TeamName() ||
			sib.Annotations[v1alpha1.AnnotationCreatorEmail] != tc.Annotations[v1alpha1.AnnotationCreatorEmail] {
			t.Errorf("%s: sibling %+v does not carry the counted fields", le.Source, sib)
		}
	}
	if records != 14 {
		t.Errorf("%d records, want the 12 generated clusters and the two of multi.yaml", records)
	}
}

// No rule can find a cluster among a set's Objects, whatever the Load kept: a rule that
// ranges over Objects sees no cluster in a small tree either, so its tests catch it.
func TestObjectsHoldNoCluster(t *testing.T) {
	dir, piped := leanTree(t)
	for _, lean := range []bool{false, true} {
		set := loadIn(t, lean, []string{dir, Stdin}, piped)
		for _, o := range set.Objects {
			if o.Kind == v1alpha1.KindTenantCluster || o.Obj == nil {
				t.Errorf("lean %v: %s: a %s among Objects (object %T)", lean, o.Source, o.Kind, o.Obj)
			}
		}
		if typed[*v1alpha1.TenantCluster](set) != nil || set.Find(v1alpha1.KindTenantCluster, "team-00", "piped") != nil {
			t.Errorf("lean %v: a cluster found among Objects", lean)
		}
		tcs, err := set.TenantClusters()
		if err != nil || len(tcs) != set.Clusters.Len() || clusterNamed(set, "multi-b") < 0 {
			t.Errorf("lean %v: %d TenantClusters (%v) of %d", lean, len(tcs), err, set.Clusters.Len())
		}
	}
}

// EachOf gives the clusters in the order asked, read ahead, and stops at fn's error with
// nothing left running.
func TestClustersEachOf(t *testing.T) {
	dir, _ := leanTree(t)
	set := loadIn(t, true, []string{dir}, "")
	n := set.Clusters.Len()
	order := make([]int, n)
	for i := range order {
		order[i] = n - 1 - i
	}
	var got []int
	err := set.Clusters.EachOf(order, func(i int, o Object, err error) error {
		if err != nil || o.Name != set.Clusters.At(i).Name {
			t.Errorf("cluster %d: %s (%v)", i, o.Name, err)
		}
		got = append(got, i)
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, order) {
		t.Fatalf("EachOf gave %v (%v), want %v", got, err, order)
	}
	stop := errors.New("stop")
	calls := 0
	err = set.Clusters.EachOf(order, func(int, Object, error) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Errorf("EachOf after fn's error: %v, %d calls", err, calls)
	}
}

// A file reused from another set (Options.Reuse, ByFile) brings its clusters as that set
// kept them, in their places among its objects, and a record is still read again.
func TestReuseBringsClusters(t *testing.T) {
	dir, _ := leanTree(t)
	for _, lean := range []bool{false, true} {
		head := loadIn(t, lean, []string{dir}, "")
		by := head.ByFile(func(f string) string { return f })
		var reused atomic.Int32 // asked on the loader's workers
		base, err := LoadWith([]string{dir}, nil, Options{Reuse: func(name string, _ []byte) (FileObjects, bool) {
			f, ok := by[name]
			if ok {
				reused.Add(1)
			}
			return f, ok
		}})
		if err != nil {
			t.Fatal(err)
		}
		if reused.Load() == 0 || !reflect.DeepEqual(base.Objects, head.Objects) || base.Clusters.Len() != head.Clusters.Len() {
			t.Fatalf("lean %v: reused %d files, %d objects and %d clusters, want %d and %d", lean, reused.Load(),
				len(base.Objects), base.Clusters.Len(), len(head.Objects), head.Clusters.Len())
		}
		for i := range head.Clusters.Len() {
			b, err := base.Clusters.Get(i)
			h, _ := head.Clusters.Get(i)
			if err != nil || !reflect.DeepEqual(b.Obj, h.Obj) || base.Clusters.list[i].at != head.Clusters.list[i].at || !base.Clusters.Same(i, &head.Clusters, i) {
				t.Errorf("lean %v: reused cluster %d differs (%v)", lean, i, err)
			}
		}
	}
}

// A record's document is read again only as it was: a file changed since is an error
// naming it, never another object.
func TestLeanFileChanged(t *testing.T) {
	dir, _ := leanTree(t)
	lean := loadIn(t, true, []string{dir}, "")
	i := clusterNamed(lean, "multi-b")
	if i < 0 || lean.Clusters.list[i].obj != nil {
		t.Fatal("no record for multi-b")
	}
	p := lean.Clusters.At(i).Source.File
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "replicas: ", "replicas:  ", 1)
	changed = strings.Replace(changed, "multi-b", "multi-c", 1)[:len(data)]
	if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := lean.Clusters.Get(i); err == nil || !strings.Contains(err.Error(), "multi.yaml: reading TenantCluster") || !strings.Contains(err.Error(), "changed since it was read") {
		t.Errorf("got %v, want the file named as changed", err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := lean.Clusters.Get(i); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("got %v, want the file named as gone", err)
	}
	if _, err := lean.TenantClusters(); err == nil {
		t.Error("TenantClusters of a set whose file went away: no error")
	}
}

// clusterNamed is the index of the cluster of that name, or -1.
func clusterNamed(s *Set, name string) int {
	for i := range s.Clusters.Len() {
		if s.Clusters.At(i).Name == name {
			return i
		}
	}
	return -1
}

// linesOf is what a line index holds, path by path. Two Loads number their paths in the
// order their workers first meet them, so the packed indexes of equal objects may differ;
// comparing them packed failed now and then.
func linesOf(l *lineIndex) map[string]int {
	if l == nil {
		return nil
	}
	v := reflect.ValueOf(l).Elem()
	pathOf := map[int64]string{}
	for it := v.FieldByName("tab").Elem().FieldByName("byStr").MapRange(); it.Next(); {
		pathOf[it.Value().Int()] = it.Key().String()
	}
	out := map[string]int{}
	b, base, id := v.FieldByName("packed").Bytes(), int(v.FieldByName("base").Int()), int64(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		line, m := binary.Uvarint(b[n:])
		b = b[n+m:]
		id += int64(d)
		out[pathOf[id]] = base + int(line)
	}
	return out
}

// sameObjects reports whether the objects of two Loads are equal, their line indexes
// compared path by path (linesOf).
func sameObjects(a, b []Object) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !reflect.DeepEqual(linesOf(x.lines), linesOf(y.lines)) {
			return false
		}
		x.lines, y.lines = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// TestReadsEveryClusterHoldsWhole: a Load whose caller reads every cluster whole holds
// them all, past WholeBytes too (each would otherwise be decoded twice); without it the
// clusters past WholeBytes are records. The set says the same either way.
func TestReadsEveryClusterHoldsWhole(t *testing.T) {
	dir, _ := leanTree(t)
	old := WholeBytes
	t.Cleanup(func() { WholeBytes = old })
	WholeBytes = 1 // the first file's clusters whole, every other's a record
	held := func(opts Options) (int, *Set) {
		set, err := LoadWith([]string{dir}, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := range set.Clusters.Len() {
			if set.Clusters.Held(i) {
				n++
			}
		}
		return n, set
	}
	all, every := held(Options{ReadsEveryCluster: true})
	some, records := held(Options{})
	if all != every.Clusters.Len() {
		t.Errorf("ReadsEveryCluster: %d of %d clusters held whole, want all", all, every.Clusters.Len())
	}
	if some >= records.Clusters.Len() {
		t.Errorf("without it: %d of %d clusters held whole, want records past WholeBytes", some, records.Clusters.Len())
	}
	a, _ := every.All()
	b, err := records.All()
	if err != nil || len(a) != len(b) {
		t.Fatalf("All: %d and %d objects (%v)", len(a), len(b), err)
	}
	for i := range a {
		if a[i].Source != b[i].Source || !reflect.DeepEqual(a[i].Obj, b[i].Obj) {
			t.Errorf("object %d: %s and %s differ", i, a[i].Source, b[i].Source)
		}
	}
}

// A file reused from a tree at another path (a change's base beside its head) brings the
// head's clusters, held objects shared, under the base's file names: Get, Walk and the
// set's references name the base's file, never the head's.
func TestReuseNamesItsOwnFile(t *testing.T) {
	dir, _ := leanTree(t)
	other := t.TempDir()
	if err := os.CopyFS(other, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	for _, lean := range []bool{false, true} {
		head := loadIn(t, lean, []string{dir}, "")
		by := head.ByFile(func(f string) string { r, _ := filepath.Rel(dir, f); return r })
		base, err := LoadWith([]string{other}, nil, Options{Reuse: func(name string, _ []byte) (FileObjects, bool) {
			r, _ := filepath.Rel(other, name)
			f, ok := by[r]
			return f, ok
		}})
		if err != nil {
			t.Fatal(err)
		}
		var walked []string
		if err := base.Walk(func(o *Object) error {
			if o.Kind == v1alpha1.KindTenantCluster {
				walked = append(walked, o.Source.File)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(walked) != head.Clusters.Len() {
			t.Fatalf("lean %v: walked %d clusters, want %d", lean, len(walked), head.Clusters.Len())
		}
		for i := range base.Clusters.Len() {
			o, err := base.Clusters.Get(i)
			h, _ := head.Clusters.Get(i)
			if err != nil || !strings.HasPrefix(o.Source.File, other) || !strings.HasPrefix(walked[i], other) ||
				!strings.HasPrefix(base.Clusters.At(i).Source.File, other) || !base.Clusters.Same(i, &head.Clusters, i) {
				t.Errorf("lean %v: cluster %d read from %s, walked as %s (%v), want a file of %s", lean, i, o.Source.File, walked[i], err, other)
			}
			if h.Source.File == o.Source.File || !strings.HasPrefix(h.Source.File, dir) {
				t.Errorf("lean %v: head's cluster %d now names %s", lean, i, h.Source.File)
			}
		}
	}
}

// Siblings of equal labels, annotations and team share one map (or reference) of the
// SiblingMaps that made them, and each carries its own values.
func TestSiblingMapsShare(t *testing.T) {
	var m SiblingMaps
	a := Cluster{Name: "a", Team: "t1", Environment: "dev", Owner: "o@x", Creator: "c@x"}
	b := Cluster{Name: "b", Team: "t1", Environment: "dev", Owner: "o@x", Creator: "c@x"}
	c := Cluster{Name: "c", Team: "t2", Environment: "prod", Owner: "o@x"}
	d := Cluster{Name: "d"}
	sa, sb, sc, sd := a.Sibling("n", &m), b.Sibling("n", &m), c.Sibling("n", &m), d.Sibling("n", &m)
	same := func(x, y map[string]string) bool {
		return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	if !same(sa.Labels, sb.Labels) || !same(sa.Annotations, sb.Annotations) || sa.Spec.TeamRef != sb.Spec.TeamRef {
		t.Error("equal siblings do not share their maps")
	}
	if same(sa.Labels, sc.Labels) || same(sa.Annotations, sc.Annotations) || sa.Spec.TeamRef == sc.Spec.TeamRef {
		t.Error("siblings of other values share a map")
	}
	if sc.Environment() != "prod" || sc.TeamName() != "t2" || sc.Annotations[v1alpha1.AnnotationOwner] != "o@x" || len(sc.Annotations) != 1 ||
		sa.Annotations[v1alpha1.AnnotationCreatorEmail] != "c@x" || sb.Name != "b" || sb.Namespace != "n" {
		t.Errorf("siblings carry the wrong values: %+v, %+v", sb.ObjectMeta, sc.ObjectMeta)
	}
	if sd.Labels != nil || sd.Annotations != nil || sd.Spec.TeamRef != nil {
		t.Errorf("a cluster without labels, annotations or team has them: %+v", sd.ObjectMeta)
	}
}

// linesOf reads back the lines a Load indexed, each path at its line.
func TestLinesOf(t *testing.T) {
	set, err := Load([]string{"-"}, strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := linesOf(set.Objects[0].lines)
	if got["metadata.name"] != 4 || got["data.a"] != 6 || got["kind"] != 2 {
		t.Errorf("linesOf gave %v", got)
	}
}

// EachOf over more records than one batch reads ahead: every cluster, in the order asked,
// across the batches; stopped in the middle of a batch, it calls fn no more.
func TestClustersEachOfBatches(t *testing.T) {
	manifesttest.InMode(t, &WholeBytes, true)
	dir := t.TempDir()
	if _, err := manifesttest.Generate(dir, 2, 2*aheadBatch+37); err != nil {
		t.Fatal(err)
	}
	set, err := Load([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := set.Clusters.Len()
	if n <= 2*aheadBatch || n%7 == 0 || set.Clusters.Held(0) {
		t.Fatalf("%d clusters (held %v), want records past two batches", n, set.Clusters.Held(0))
	}
	order := make([]int, n)
	for k := range order {
		order[k] = (k * 7) % n // every cluster once (n is prime to 7), out of order
	}
	var got []int
	if err := set.Clusters.EachOf(order, func(i int, o Object, err error) error {
		if err != nil || o.Name != set.Clusters.At(i).Name {
			t.Errorf("cluster %d: %s (%v)", i, o.Name, err)
		}
		got = append(got, i)
		return nil
	}); err != nil || !slices.Equal(got, order) {
		t.Fatalf("EachOf gave %d clusters (%v), want %d in the order asked", len(got), err, n)
	}
	stop, calls := errors.New("stop"), 0
	err = set.Clusters.EachOf(order, func(int, Object, error) error {
		if calls++; calls == aheadBatch+aheadBatch/2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != aheadBatch+aheadBatch/2 {
		t.Errorf("EachOf stopped in its second batch: %v after %d calls", err, calls)
	}
}
