package manifest

import (
	"strings"
	"testing"
)

// YAML that is not Kubernetes is listed, not refused; what carries anything of an object
// (apiVersion, kind, metadata, spec, or a misspelling of them) stays a broken manifest.
func TestNotObjects(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		notObj   []int  // lines of the documents listed in Set.NotObjects
		err      string // the error, when the load fails
	}{
		{name: "pre-commit", in: "repos:\n  - repo: local\n", notObj: []int{1}},
		{name: "compose and a manifest", in: "services:\n  web: {image: nginx}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", notObj: []int{1}},
		{name: "empty mapping", in: "{}\n", notObj: []int{1}},
		{name: "json", in: `{"name": "x", "version": "1.0.0"}`, notObj: []int{1}},
		{name: "metadata only", in: "metadata: {name: x}\nspec: {}\n", err: "apiVersion: missing or not a string"},
		{name: "spec only", in: "spec: {replicas: 1}\n", err: "apiVersion: missing or not a string"},
		{name: "kind only", in: "kind: Team\n", err: "apiVersion: missing or not a string"},
		{name: "apiVersion only", in: "apiVersion: v1\n", err: "kind: missing or not a string"},
		{name: "misspelt header", in: "apiversion: v1\nKind: ConfigMap\n", err: "missing or not a string"},
		{name: "snake case header", in: "api_version: v1\n", err: "missing or not a string"},
		{name: "merge key", in: "<<: {a: 1}\n", err: "missing or not a string"},
		{name: "list", in: "- a\n", err: "must be a mapping"},
		{name: "scalar", in: "just text\n", err: "must be a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "f.yaml"
			if strings.HasPrefix(tc.in, "{\"") {
				name = "f.json"
			}
			set, err := LoadFiles([]File{{Name: name, Data: []byte(tc.in)}}, Options{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for _, s := range set.NotObjects {
				if s.File != name {
					t.Errorf("file %q", s.File)
				}
				lines = append(lines, s.Line)
			}
			if len(lines) != len(tc.notObj) || (len(lines) > 0 && lines[0] != tc.notObj[0]) {
				t.Errorf("not objects at lines %v, want %v", lines, tc.notObj)
			}
			// Decode, for a file named for its objects, refuses it.
			if _, err := Decode(name, []byte(tc.in)); err == nil || !strings.Contains(err.Error(), "not a Kubernetes object") {
				t.Errorf("Decode: %v", err)
			}
			// Strict mode lists it as an error, as it does a document of another group.
			if _, err := LoadFiles([]File{{Name: name, Data: []byte(tc.in)}}, Options{Strict: true}); err == nil || !strings.Contains(err.Error(), "the tools do not check it") {
				t.Errorf("strict: %v", err)
			}
		})
	}
}

// A Load of a directory lists them too, with the objects beside them intact.
func TestLoadNotObjects(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		".pre-commit-config.yaml": "repos: []\n",
		"cm.yaml":                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n# values\nreplicaCount: 1\n",
	})
	set, err := LoadWith([]string{dir}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Objects) != 1 || len(set.NotObjects) != 2 {
		t.Fatalf("%d objects, %d not objects", len(set.Objects), len(set.NotObjects))
	}
	if s := set.NotObjects[1]; s.File != dir+"/cm.yaml" || s.Doc != 1 || s.Line != 6 {
		t.Errorf("second: %+v", s)
	}
}
