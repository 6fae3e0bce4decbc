package gitops

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// valuesFrom applies spec.valuesFrom as helm-controller does, then spec.values. A
// reference to a Secret SOPS encrypted skips the release (the tree cannot say its values).
func (l *loader) valuesFrom(inst *install, as *manifest.Object, u map[string]any, siblings []manifest.Object, fail func(string, string, ...any) error) (string, error) {
	refs, _, _ := unstructured.NestedSlice(u, "spec", "valuesFrom")
	specValues, _, _ := unstructured.NestedMap(u, "spec", "values")
	specValues, err := jsonValues(specValues)
	if err != nil {
		return "", fail("spec.values", "%v", err)
	}
	result := map[string]any{}
	for i, r := range refs {
		ref, _ := r.(map[string]any)
		field := "spec.valuesFrom[" + strconv.Itoa(i) + "]"
		kind, _ := ref["kind"].(string)
		name, _ := ref["name"].(string)
		key, _ := ref["valuesKey"].(string)
		if key == "" {
			key = "values.yaml"
		}
		target, _ := ref["targetPath"].(string)
		optional, _ := ref["optional"].(bool)
		literal, _ := ref["literal"].(bool)
		obj := findObject(siblings, l.raw.Objects, kind, as.Namespace, name)
		if obj == nil {
			if optional {
				continue
			}
			return "", fail(field, "%s %s/%s is not in the tree (valuesFrom without optional: true)", kind, as.Namespace, name)
		}
		if kind == "Secret" && isSOPS(obj) {
			return "with valuesFrom an encrypted Secret", nil
		}
		data, keyField, found, err := dataOf(obj, kind, key)
		if err != nil {
			return "", fail(field, "%v", err)
		}
		if !found {
			if optional {
				continue
			}
			return "", fail(field, "%s %s/%s has no key %q", kind, as.Namespace, name, key)
		}
		// The key's line, as the object's lines index it: a typed map's key in brackets,
		// an unstructured object's as a field; the one the file has is the deeper line.
		at := place{l.rel(l.abs(obj.Source.File)), max(obj.Line(keyField), obj.Line(strings.Replace(strings.Replace(keyField, "[", ".", 1), "]", "", 1)))}
		if target != "" {
			result = mergeMaps(result, specValues)
			set := replacePathValue
			if literal {
				set = replacePathLiteral
			}
			if err := set(result, target, data); err != nil {
				return "", fail(field+".targetPath", "%v", err)
			}
			inst.vals.layers = append(inst.vals.layers, setLayer(target, at))
			continue
		}
		v, err := readValues([]byte(data))
		if err != nil {
			return "", fail(field, "%s", errValues(fmt.Sprintf("%s %s/%s key %q", kind, as.Namespace, name, key), err))
		}
		result = mergeMaps(result, v)
		if kind == "ConfigMap" {
			inst.vals.layers = append(inst.vals.layers, yamlLayer(at.file, textLine(at.line, data), []byte(data)))
		} else {
			inst.vals.layers = append(inst.vals.layers, keysAt(v, at)) // a Secret's text is base64: its key's line
		}
	}
	inst.vals.user = mergeMaps(result, specValues)
	inst.vals.layers = append(inst.vals.layers, fieldLayer(l.rel(l.abs(inst.entry.Source.File)), specValues, inst.entry.Line, "spec.values"))
	return "", nil
}

// keysAt records every key of values at one place.
func keysAt(v map[string]any, at place) valuesLayer {
	l := fieldLayer(at.file, v, func(string) int { return at.line }, "")
	return l
}

// findObject is the ConfigMap or Secret a valuesFrom names: among what was applied with
// the release first, then the tree's objects (one without namespace matches any).
func findObject(siblings, raw []manifest.Object, kind, namespace, name string) *manifest.Object {
	for _, set := range [][]manifest.Object{siblings, raw} {
		for i := range set {
			o := &set[i]
			if o.Kind == kind && o.Name == name && group(o) == "" && (o.Namespace == namespace || o.Namespace == "") {
				return o
			}
		}
	}
	return nil
}

// dataOf is a ConfigMap's or Secret's value at key (a Secret's decoded, stringData over
// data as the API server merges them), and the field it is written at.
func dataOf(o *manifest.Object, kind, key string) (data, field string, found bool, err error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.Obj)
	if err != nil {
		return "", "", false, err
	}
	if kind == "Secret" {
		if s, ok, _ := unstructured.NestedString(u, "stringData", key); ok {
			return s, keyField("stringData", key), true, nil
		}
		enc, ok, _ := unstructured.NestedString(u, "data", key)
		if !ok {
			return "", "", false, nil
		}
		dec, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			return "", "", false, fmt.Errorf("Secret %s key %q is not base64", o.Name, key)
		}
		return string(dec), keyField("data", key), true, nil
	}
	s, ok, _ := unstructured.NestedString(u, "data", key)
	return s, keyField("data", key), ok, nil
}

// keyField is the path of a map's key as the manifest's lines index it.
func keyField(m, key string) string { return m + "[" + key + "]" }
