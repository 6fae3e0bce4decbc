package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	sigsjson "sigs.k8s.io/json"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// viaJSON is how a typed object was decoded before fill: convert's value, as JSON, through
// sigs.k8s.io/json's strict decoder.
func viaJSON(n *yaml.Node, ki *Kind, apiVersion, kind string) (any, bool) {
	c := newConverter(ki.strict)
	v, ok := c.convert(n, ki.typ, nil, 0)
	if !ok || len(c.errs) > 0 {
		return nil, false
	}
	m := v.(map[string]any)
	m["apiVersion"], m["kind"] = apiVersion, kind
	data, err := json.Marshal(m)
	if err != nil {
		return nil, false
	}
	obj := ki.NewTyped()
	opts := []sigsjson.StrictOption{sigsjson.DisallowDuplicateFields}
	if ki.strict {
		opts = append(opts, sigsjson.DisallowUnknownFields)
	}
	if errs, err := sigsjson.UnmarshalStrict(data, obj, opts...); err != nil || len(errs) > 0 {
		return nil, false
	}
	return obj, true
}

func viaFill(n *yaml.Node, ki *Kind, apiVersion, kind string) (any, bool) {
	c := newConverter(ki.strict)
	obj := ki.NewTyped()
	if !c.fill(n, reflect.ValueOf(obj).Elem(), nil, 0) || len(c.errs) > 0 {
		return nil, false
	}
	ta, _ := meta.TypeAccessor(obj)
	ta.SetAPIVersion(apiVersion)
	ta.SetKind(kind)
	return obj, true
}

// fillCorpus is every document of a known kind the repository holds: the examples, the
// testscripts' files (hostile ones too) and a generated tree.
func fillCorpus(t *testing.T) map[string]string {
	docs := map[string]string{}
	root := filepath.Join("..", "..", "..")
	add := func(name string, data []byte) {
		if !strings.Contains(string(data), "kind:") && !strings.Contains(string(data), `"kind"`) {
			return
		}
		docs[name] = string(data)
	}
	for _, dir := range []string{"examples", "testdata"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			switch {
			case strings.HasSuffix(p, ".txtar"):
				for _, f := range txtar.Parse(data).Files {
					add(p+":"+f.Name, f.Data)
				}
			case isManifest(p):
				add(p, data)
			}
			return nil
		})
	}
	tree, err := manifesttest.Generate(t.TempDir(), 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tree.Clusters {
		data, _ := os.ReadFile(p)
		add(p, data)
	}
	return docs
}

// TestFillAsJSON holds fill to what the JSON round trip it replaced made of every document
// of a known kind in the repository: the same object, or an error for both.
func TestFillAsJSON(t *testing.T) {
	compared := 0
	for name, data := range fillCorpus(t) {
		for _, seg := range yamldoc.SplitDocuments(data) {
			if seg.Doc < 0 {
				continue
			}
			doc, _, _, err := yamldoc.ParseSegment(seg)
			if err != nil || doc == nil {
				continue
			}
			n := yamldoc.Resolve(doc.Content[0])
			h := readHeader(n)
			ki, _ := KindFor(h.apiVersion, h.kind)
			if ki == nil || n.Kind != yaml.MappingNode {
				continue
			}
			want, okJSON := viaJSON(n, ki, h.apiVersion, h.kind)
			got, okFill := viaFill(n, ki, h.apiVersion, h.kind)
			if okJSON != okFill {
				t.Errorf("%s (document %d): through JSON ok=%v, fill ok=%v", name, seg.Doc+1, okJSON, okFill)
				continue
			}
			if okJSON && !reflect.DeepEqual(want, got) {
				w, _ := json.Marshal(want)
				g, _ := json.Marshal(got)
				t.Errorf("%s (document %d): fill differs\nJSON: %s\nfill: %s", name, seg.Doc+1, w, g)
			}
			compared++
		}
	}
	if compared < 100 {
		t.Fatalf("only %d documents compared: the corpus was not found", compared)
	}
	t.Logf("%d documents compared", compared)
}

// TestFillEdges holds fill to the JSON round trip on the values that take a detour: numbers
// as quantities, whole floats in free-form values, nulls in maps and lists, base64.
func TestFillEdges(t *testing.T) {
	for _, in := range []string{
		teamHeader + "spec:\n  resourceLimits: {maxCPUCores: 4, maxMemory: 1e3, maxStorage: 0.5}\n",
		teamHeader + "spec:\n  resourceLimits: {maxCPUCores: \" 4 \", maxMemory: null}\n",
		teamHeader + "spec:\n  environments:\n    - name: dev\n      clusterDefaults: {workerCPU: \"2\"}\n",
		"apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: TenantCluster\nmetadata:\n  name: a\n  namespace: b\n  labels: {x: null, y: \"\"}\nspec:\n  addons:\n    cni: {version: \"1\", values: {a: 1.0, b: [1, 2.5, null], c: 1e300}}\n",
	} {
		doc, _, _, err := yamldoc.ParseSegment(yamldoc.Segment{Text: in, Line: 1})
		if err != nil {
			t.Fatal(err)
		}
		n := yamldoc.Resolve(doc.Content[0])
		h := readHeader(n)
		ki, _ := KindFor(h.apiVersion, h.kind)
		want, okJSON := viaJSON(n, ki, h.apiVersion, h.kind)
		got, okFill := viaFill(n, ki, h.apiVersion, h.kind)
		if okJSON != okFill || !reflect.DeepEqual(want, got) {
			w, _ := json.Marshal(want)
			g, _ := json.Marshal(got)
			t.Errorf("%s:\nJSON (%v): %s\nfill (%v): %s", in, okJSON, w, okFill, g)
		}
	}
}
