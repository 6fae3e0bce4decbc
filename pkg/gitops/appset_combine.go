package gitops

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// combineParams is a matrix or merge generator's parameter sets, as Argo CD combines its
// child generators': a matrix's two children crossed, the second rendered with each set
// of the first; a merge's first child's sets, each overridden by the sets of the others
// that have the same values of its mergeKeys.
func (l *loader) combineParams(s *manifest.Object, kind string, body map[string]any, field string, r renderer, depth int) ([]params, string, error) {
	kids, _ := body["generators"].([]any)
	switch {
	case kind == "matrix" && len(kids) != 2:
		return nil, "", l.setError(s, field+".generators", "a matrix generator combines exactly 2 generators, not %d", len(kids))
	case kind == "merge" && len(kids) < 2:
		return nil, "", l.setError(s, field+".generators", "a merge generator combines at least 2 generators, not %d", len(kids))
	}
	child := func(i int, with params) ([]params, string, error) {
		g, _ := kids[i].(map[string]any)
		if with != nil {
			rendered, err := r.deep(g, with)
			if err != nil {
				return nil, "", l.setError(s, fmt.Sprintf("%s.generators[%d]", field, i), "%v", err)
			}
			g = rendered.(map[string]any)
		}
		return l.generatorParams(s, g, fmt.Sprintf("%s.generators[%d]", field, i), r, depth)
	}
	if kind == "merge" {
		return l.mergeParams(s, body, field, r, len(kids), child)
	}
	first, skip, err := child(0, nil)
	if skip != "" || err != nil {
		return nil, skip, err
	}
	var out []params
	for _, a := range first {
		second, skip, err := child(1, a)
		if skip != "" || err != nil {
			return nil, skip, err
		}
		for _, b := range second {
			p, err := combine(a, b, r.goTemplate)
			if err != nil {
				return nil, "", l.setError(s, field, "%v", err)
			}
			out = append(out, p)
		}
	}
	return out, "", nil
}

// combine is a matrix's parameter set of a and b: for Go templates b overlaid by a; for
// fasttemplate their union, a key both hold with different values an error.
func combine(a, b params, goTemplate bool) (params, error) {
	if goTemplate {
		return mergeMaps(b, a), nil
	}
	out := params{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if old, ok := out[k]; ok && old != v {
			return nil, fmt.Errorf("found duplicate key %s with different value, a: %v ,b: %v", k, old, v)
		}
		out[k] = v
	}
	return out, nil
}

func (l *loader) mergeParams(s *manifest.Object, body map[string]any, field string, r renderer, n int,
	child func(int, params) ([]params, string, error)) ([]params, string, error) {
	var keys []string
	ks, _ := body["mergeKeys"].([]any)
	for _, k := range ks {
		if str, ok := k.(string); ok {
			keys = append(keys, str)
		}
	}
	if len(keys) == 0 {
		return nil, "", l.setError(s, field+".mergeKeys", "a merge generator needs at least one merge key")
	}
	var base map[string]params
	for i := 0; i < n; i++ {
		ps, skip, err := child(i, nil)
		if skip != "" || err != nil {
			return nil, skip, err
		}
		byKey, err := byMergeKey(keys, ps)
		if err != nil {
			return nil, "", l.setError(s, fmt.Sprintf("%s.generators[%d]", field, i), "%v", err)
		}
		if i == 0 {
			base = byKey
			continue
		}
		for k, b := range base {
			if over, ok := byKey[k]; ok {
				if r.goTemplate {
					base[k] = mergeMaps(b, over)
				} else {
					for ok, ov := range over {
						b[ok] = ov
					}
				}
			}
		}
	}
	order := make([]string, 0, len(base))
	for k := range base {
		order = append(order, k)
	}
	sort.Strings(order)
	out := make([]params, 0, len(order))
	for _, k := range order {
		out = append(out, base[k])
	}
	return out, "", nil
}

// byMergeKey indexes parameter sets by the values of the merge keys; two sets with the
// same values are an error, as in Argo CD.
func byMergeKey(keys []string, ps []params) (map[string]params, error) {
	out := map[string]params{}
	for _, p := range ps {
		vals := map[string]any{}
		for _, k := range keys {
			vals[k] = lookup(p, k)
		}
		data, err := json.Marshal(vals)
		if err != nil {
			return nil, err
		}
		if _, dup := out[string(data)]; dup {
			return nil, fmt.Errorf("two parameter sets have the same merge key values %s", data)
		}
		out[string(data)] = p
	}
	return out, nil
}

// lookup is a parameter by its flat name, else by its dotted path in nested maps.
func lookup(p params, key string) any {
	if v, ok := p[key]; ok {
		return v
	}
	var cur any = map[string]any(p)
	for _, part := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}
