package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

func fuzzSeeds(add func([]byte)) {
	for _, s := range []string{
		commentedFile,
		teamHeader + "spec:\n  clusterDefaults: {workerCPU: \"4\"}\n  environments: [{name: dev}]\n",
		clusterHeader + "spec:\n  kubernetesVersion: v1.31.0\n  workers: {replicas: 1, machineTemplate: {memory: 16Gi}}\n  addons: {cni: {version: \"1\", values: {a: [1, 2]}}}\n",
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n",
		"a: &a {b: 1}\nc: *a\nd:\n  <<: *a\napiVersion: v1\nkind: X\n",
		`{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}`,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n  s: |\n    line\n     indented\n  q: 'it''s'\n  d: \"tab\\there\"\n",
		"--- |\n  text\n",
		"apiVersion: v1\nkind: [\n",
		"\ufeffapiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: c}\r\n",
	} {
		add([]byte(s))
	}
	files, _ := filepath.Glob("../../examples/*/*.yaml")
	more, _ := filepath.Glob("../../examples/*/*/*.yaml")
	for _, p := range append(files, more...) {
		if b, err := os.ReadFile(p); err == nil {
			add(b)
		}
	}
}

// FuzzDecode checks that no input makes Decode or Validate panic or hang, and that every
// object that decodes can be written back into its document.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(func(b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := Decode("f.yaml", data)
		for _, o := range objs {
			_ = Validate(o)
		}
		if err != nil || len(data) > 1<<14 {
			return
		}
		segs := yamldoc.SplitDocuments(string(data))
		for _, o := range objs {
			for _, s := range segs {
				if s.Doc != o.Source.Doc {
					continue
				}
				out, err := editDocument(s, o.Source.Item, o.Obj, false)
				if err != nil {
					t.Fatalf("rewriting %s unchanged: %v\n%q", o.Source, err, s.Text)
				}
				again, err := Decode("f.yaml", []byte(out))
				if err != nil || len(again) == 0 {
					t.Fatalf("rewritten %s does not decode: %v\n%q", o.Source, err, out)
				}
			}
		}
	})
}

// FuzzWrite edits objects of arbitrary shape (other tools' kinds decode as unstructured)
// and checks that the edited document reads back as the edited object.
func FuzzWrite(f *testing.F) {
	fuzzSeeds(func(b []byte) {
		for op := uint8(0); op < 12; op += 5 {
			f.Add(b, op)
		}
	})
	f.Fuzz(func(t *testing.T, data []byte, op uint8) {
		if len(data) > 1<<13 {
			return
		}
		objs, err := Decode("f.yaml", data)
		if err != nil {
			return
		}
		segs := yamldoc.SplitDocuments(string(data))
		for _, o := range objs {
			u, ok := o.Obj.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			u = u.DeepCopy()
			mutate(u.Object, op, 0)
			for _, s := range segs {
				if s.Doc != o.Source.Doc {
					continue
				}
				out, err := editDocument(s, o.Source.Item, u, false)
				if errors.Is(err, errAnchored) {
					continue // refused by name: anchors are never flattened into copies
				}
				if err != nil {
					t.Fatalf("editing %s: %v\n%q", o.Source, err, s.Text)
				}
				again, err := Decode("f.yaml", []byte(out))
				if err != nil {
					t.Fatalf("edited %s does not decode: %v\n%q\n%q", o.Source, err, s.Text, out)
				}
				for _, a := range again {
					if a.Source.Item == o.Source.Item {
						if got := a.Obj.(*unstructured.Unstructured).Object; !reflect.DeepEqual(got, u.Object) {
							t.Fatalf("edited %s reads back as\n%v\nwant\n%v\n%q", o.Source, got, u.Object, out)
						}
					}
				}
			}
		}
	})
}

// mutate changes a map deterministically, leaving the object's identity alone.
func mutate(m map[string]any, op uint8, depth int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if depth == 0 && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if depth < 3 && op&16 != 0 {
		for _, k := range keys {
			if sub, ok := m[k].(map[string]any); ok {
				mutate(sub, op, depth+1)
				return
			}
		}
	}
	switch op % 6 {
	case 0:
		m["zz-new"] = map[string]any{"a": "b", "list": []any{"x", int64(1)}}
	case 1:
		if len(keys) > 0 {
			delete(m, keys[0])
		}
	case 2:
		if len(keys) > 0 {
			m[keys[len(keys)-1]] = "changed: value"
		}
	case 3:
		for _, k := range keys {
			if l, ok := m[k].([]any); ok {
				m[k] = append(l, map[string]any{"name": "added"})
				return
			}
		}
		m["zz-list"] = []any{}
	case 4:
		for _, k := range keys {
			if l, ok := m[k].([]any); ok && len(l) > 1 {
				l[0], l[len(l)-1] = l[len(l)-1], l[0]
				return
			}
		}
	case 5:
		for _, k := range keys {
			m[k] = int64(7)
			return
		}
	}
}
