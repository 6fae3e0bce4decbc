package check

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
	"sigs.k8s.io/yaml"
)

// A state check of a lean Load (records, each cluster read again when judged, records as
// its siblings) says what the check of the whole objects says, finding for finding, line
// for line, usage row for usage row: on random trees with caps near their usage, some
// clusters in files of their own and some in one file of many documents, some without a
// namespace (placed by their team).
func TestLeanStateAsWhole(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	findings := 0
	for i := 0; i < 60; i++ {
		docs := strings.Split(randomTreeText(rng), "---\n")
		dir := t.TempDir()
		var shared strings.Builder
		for j, d := range docs {
			if rng.Intn(3) == 0 {
				d = strings.Replace(d, "  namespace: t\n", "", 1)
			}
			if rng.Intn(2) == 0 {
				shared.WriteString("---\n# document " + string(rune('a'+j%26)) + "\n" + d)
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, "doc"+string(rune('a'+j%26))+string(rune('a'+j/26))+".yaml"), []byte(d), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "shared.yaml"), []byte(shared.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		whole, lean := loadBoth(t, dir)
		w, l := reportJSON(t, State(whole, Options{})), reportJSON(t, State(lean, Options{}))
		if w != l {
			t.Fatalf("tree %d: the lean check differs:\nwhole %s\nlean  %s", i, w, l)
		}
		findings += strings.Count(w, `"rule"`)
	}
	if findings < 100 {
		t.Errorf("only %d findings over the random trees: too few to compare the two checks", findings)
	}
}

func reportJSON(t *testing.T, r *Report) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The shapes of file a lean Load reads again a document of: CRLF lines, a byte order mark,
// "---" markers with comments, "..." ends, a cluster without a namespace, the migration
// annotation, a JSON file; the state check of the lean Load is the whole one's.
func TestLeanStateAsWholeShapes(t *testing.T) {
	dir := t.TempDir()
	if _, err := manifesttest.Generate(dir, 2, 8); err != nil {
		t.Fatal(err)
	}
	c := func(name string, i int) string { return manifesttest.Cluster("team-00", name, i) }
	files := map[string]string{
		"crlf.yaml":  strings.ReplaceAll(c("crlf-a", 201)+"---\n"+c("crlf-b", 202), "\n", "\r\n"),
		"bom.yaml":   "\ufeff" + c("bom-a", 203) + "--- # next\n" + c("bom-b", 204),
		"ends.yaml":  c("end-a", 205) + "...\n---\n" + c("end-b", 206) + "...\n",
		"nons.yaml":  strings.Replace(c("nons", 207), "  namespace: team-00\n", "", 1),
		"migr.yaml":  strings.Replace(c("migr", 208), "  annotations:\n", "  annotations:\n    butler.butlerlabs.dev/migration-operation: \"true\"\n", 1),
		"empty.yaml": "---\n# nothing\n---\n" + c("after-empty", 209) + "---\n",
	}
	js, err := yaml.YAMLToJSON([]byte(c("json-a", 210)))
	if err != nil {
		t.Fatal(err)
	}
	files["json.json"] = string(js) + "\n"
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	whole, lean := loadBoth(t, dir)
	w, l := reportJSON(t, State(whole, Options{})), reportJSON(t, State(lean, Options{}))
	if w != l {
		t.Fatalf("the lean check differs:\nwhole %s\nlean  %s", w, l)
	}
	for _, want := range []string{`"migration-annotation"`, `"line":`} {
		if !strings.Contains(w, want) {
			t.Errorf("no %s in the report: the shapes are not judged", want)
		}
	}
}

// A cluster whose file changed between the lean Load and its judging leaves the tree
// unjudged, as a file that does not decode does: the report is that file's error alone,
// not findings and usage counted with a record that no longer stands for the file.
func TestLeanRecordUnreadableLeavesTreeUnjudged(t *testing.T) {
	dir := t.TempDir()
	if _, err := manifesttest.Generate(dir, 2, 8); err != nil {
		t.Fatal(err)
	}
	_, lean := loadBoth(t, dir)
	changed := lean.Clusters.At(0).Source.File
	data, err := os.ReadFile(changed)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(changed, []byte(strings.Replace(string(data), "replicas: ", "replicas: 9", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := State(lean, Options{})
	if !r.Unreadable {
		t.Fatal("a record that cannot be read again: the report is not unreadable")
	}
	if len(r.Usage) != 0 {
		t.Errorf("usage counted over an unread tree: %+v", r.Usage)
	}
	for _, f := range r.Findings {
		if f.Rule != RuleDecode || f.File != changed {
			t.Errorf("finding %+v beside the unreadable file's: nothing else was judged", f)
		}
	}
	if len(r.Findings) != 1 {
		t.Errorf("%d findings, want the changed file's", len(r.Findings))
	}
}

// loadBoth loads dir keeping its clusters whole, then keeping records of them.
func loadBoth(t *testing.T, dir string) (whole, lean *manifest.Set) {
	t.Helper()
	var err error
	manifesttest.InMode(t, &manifest.WholeBytes, false)
	if whole, err = manifest.Load([]string{dir}, nil); err != nil {
		t.Fatal(err)
	}
	manifesttest.InMode(t, &manifest.WholeBytes, true)
	if lean, err = manifest.Load([]string{dir}, nil); err != nil {
		t.Fatal(err)
	}
	return whole, lean
}
