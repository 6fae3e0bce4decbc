package gitops

import (
	"encoding/json"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/strvals"
	sigsyaml "sigs.k8s.io/yaml"
)

// valuesLayer is one source of a release's values, and where each key it sets is written
// ("a.b" → file and line), so a field a template sets from .Values.a.b points there.
type valuesLayer struct {
	keys map[string]place
	// lazy, when set, makes keys on the first question: a values file is parsed for its
	// lines only when a finding asks where a value was set.
	lazy func() map[string]place
}

func (l *valuesLayer) get(path string) (place, bool) {
	if l.keys == nil && l.lazy != nil {
		l.keys, l.lazy = l.lazy(), nil
	}
	p, ok := l.keys[path]
	return p, ok
}

type place struct {
	file string
	line int
}

// values is a release's values as its controller composes them: the user-supplied map
// (chart defaults are Helm's to coalesce), and the layers in the order they were merged.
type values struct {
	user   map[string]any
	layers []valuesLayer
	// defaults, when not nil, replace the chart's values.yaml (Flux's valuesFiles).
	defaults      map[string]any
	defaultLayers []valuesLayer
}

// origin is where the last layer that set a key path (dotted, from .Values) wrote it.
func (v *values) origin(path string) (place, bool) {
	for i := len(v.layers) - 1; i >= 0; i-- {
		if p, ok := v.layers[i].get(path); ok {
			return p, true
		}
	}
	for i := len(v.defaultLayers) - 1; i >= 0; i-- {
		if p, ok := v.defaultLayers[i].get(path); ok {
			return p, true
		}
	}
	return place{}, false
}

// readValues parses values YAML as Helm reads a values file (numbers as float64, as
// Helm's templates print them).
func readValues(data []byte) (map[string]any, error) {
	v, err := chartutil.ReadValues(data)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// jsonValues is an object's field (spec.values, valuesObject) as the controller reads it:
// through JSON, so its numbers are float64 as Helm's are.
func jsonValues(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	return out, json.Unmarshal(data, &out)
}

// yamlLayer records where each key of values YAML is written: text starts at line base+1
// of file.
func yamlLayer(file string, base int, data []byte) valuesLayer {
	return valuesLayer{lazy: func() map[string]place { return yamlKeys(file, base, data) }}
}

func yamlKeys(file string, base int, data []byte) map[string]place {
	l := valuesLayer{keys: map[string]place{}}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return l.keys
	}
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := prefix + n.Content[i].Value
			l.keys[k] = place{file, base + n.Content[i].Line}
			walk(n.Content[i+1], k+".")
		}
	}
	walk(doc.Content[0], "")
	return l.keys
}

// fieldLayer records the keys of values written as an object's field (spec.values),
// each at its own line in the object's file.
func fieldLayer(file string, m map[string]any, line func(field string) int, field string) valuesLayer {
	l := valuesLayer{keys: map[string]place{}}
	var walk func(m map[string]any, prefix string)
	walk = func(m map[string]any, prefix string) {
		for k, v := range m {
			key := prefix + k
			l.keys[key] = place{file, line(field + "." + key)}
			if sub, ok := v.(map[string]any); ok {
				walk(sub, key+".")
			}
		}
	}
	walk(m, "")
	return l
}

// setLayer records a --set style assignment ("a.b[0].c=v") as setting a.b, at one line.
func setLayer(assignment string, p place) valuesLayer {
	key, _, _ := strings.Cut(assignment, "=")
	if i := strings.IndexByte(key, '['); i >= 0 {
		key = key[:i]
	}
	return valuesLayer{keys: map[string]place{strings.TrimSuffix(key, "."): p}}
}

// textLine is the line a multi-line string field's text starts on: the line after its
// key for a block scalar, else the key's own line.
func textLine(keyLine int, text string) int {
	if strings.Contains(text, "\n") {
		return keyLine
	}
	return keyLine - 1
}

// replacePathValue sets path to value as Flux's valuesFrom with targetPath does: Helm's
// --set parser, as a string when the value is quoted.
func replacePathValue(vals map[string]any, path, value string) error {
	quoted := len(value) >= 2 && (strings.HasPrefix(value, "'") && strings.HasSuffix(value, "'") ||
		strings.HasPrefix(value, `"`) && strings.HasSuffix(value, `"`))
	if quoted {
		return strvals.ParseIntoString(path+"="+strings.Trim(value, `'"`), vals)
	}
	return strvals.ParseInto(path+"="+value, vals)
}

// replacePathLiteral sets path to value verbatim (Flux's valuesFrom literal: true).
func replacePathLiteral(vals map[string]any, path, value string) error {
	esc := strings.NewReplacer(`\`, `\\`, `,`, `\,`, `[`, `\[`, `]`, `\]`, `{`, `\{`, `}`, `\}`)
	return strvals.ParseIntoString(path+"="+esc.Replace(value), vals)
}

// argoSetValue escapes the commas of a parameter's value as Argo CD does before it passes
// it to --set, unless the value is a Helm list ({a,b}).
func argoSetValue(val string) string {
	if strings.HasPrefix(val, "{") && strings.HasSuffix(val, "}") {
		return val
	}
	var b strings.Builder
	var prev rune
	for _, r := range val {
		if r == ',' && prev != '\\' {
			b.WriteString(`\,`)
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// valuesYAML is an Argo CD source's values: valuesObject when set, else the values string.
func valuesYAML(helm map[string]any) ([]byte, bool, error) {
	if obj, ok := helm["valuesObject"]; ok && obj != nil {
		data, err := json.Marshal(obj)
		if err != nil {
			return nil, true, err
		}
		y, err := sigsyaml.JSONToYAML(data)
		return y, true, err
	}
	s, _ := helm["values"].(string)
	return []byte(s), false, nil
}

// errValues words a values source that does not parse.
func errValues(what string, err error) error {
	return fmt.Errorf("%s: not values Helm can read: %v", what, err)
}
