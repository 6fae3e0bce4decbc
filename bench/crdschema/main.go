// Command crdschema writes JSON schemas of the project's CRDs for kubeconform, the way its
// openapi2jsonschema script does: one file per kind and version, named
// <kind>_<version>.json in lower case, the version's openAPIV3Schema with the Kubernetes
// extensions JSON Schema does not know turned into their JSON Schema form
// (x-kubernetes-int-or-string becomes a choice of string or integer).
//
//	go run ./bench/crdschema -out /tmp/schemas config/crd/*.yaml
//	kubeconform -strict -schema-location '/tmp/schemas/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json' DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

type crd struct {
	Spec struct {
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Schema struct {
				OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

func main() {
	out := flag.String("out", "", "directory to write the schemas to (created)")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: crdschema -out DIR CRD.yaml...")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "crdschema:", err)
		os.Exit(1)
	}
	n := 0
	for _, f := range flag.Args() {
		data, err := fileio.ReadFile(f, 64<<20) // CRDs, in the tens of KiB
		if err != nil {
			fmt.Fprintln(os.Stderr, "crdschema:", err)
			os.Exit(1)
		}
		var c crd
		if err := yaml.Unmarshal(data, &c); err != nil {
			fmt.Fprintf(os.Stderr, "crdschema: %s: %v\n", f, err)
			os.Exit(1)
		}
		for _, v := range c.Spec.Versions {
			if v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			s := jsonSchema(v.Schema.OpenAPIV3Schema).(map[string]any)
			s["$schema"] = "http://json-schema.org/schema#"
			b, _ := json.MarshalIndent(s, "", "  ")
			name := strings.ToLower(c.Spec.Names.Kind + "_" + v.Name + ".json")
			if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "crdschema:", err)
				os.Exit(1)
			}
			n++
		}
	}
	fmt.Printf("%d schemas in %s\n", n, *out)
}

// jsonSchema rewrites the Kubernetes extensions of a structural schema.
func jsonSchema(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = jsonSchema(e)
		}
		if b, _ := x["x-kubernetes-int-or-string"].(bool); b {
			delete(out, "type")
			out["oneOf"] = []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonSchema(e)
		}
		return out
	}
	return v
}
