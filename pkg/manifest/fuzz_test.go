package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

func fuzzSeeds(f *testing.F) {
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
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("../../examples/*/*.yaml")
	more, _ := filepath.Glob("../../examples/*/*/*.yaml")
	for _, p := range append(files, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// FuzzDecode checks that no input makes Decode or Validate panic or hang, and that every
// object that decodes can be written back into its document.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := Decode("f.yaml", data)
		for _, o := range objs {
			_ = Validate(o)
		}
		if err != nil || len(data) > 1<<14 {
			return
		}
		segs := splitDocuments(string(data))
		for _, o := range objs {
			for _, s := range segs {
				if s.doc != o.Source.Doc {
					continue
				}
				out, err := editDocument(s, o.Source.Item, o.Obj, false)
				if err != nil {
					t.Fatalf("rewriting %s unchanged: %v\n%q", o.Source, err, s.text)
				}
				again, err := Decode("f.yaml", []byte(out))
				if err != nil || len(again) == 0 {
					t.Fatalf("rewritten %s does not decode: %v\n%q", o.Source, err, out)
				}
			}
		}
	})
}
