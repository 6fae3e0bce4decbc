package output

import (
	"encoding/json"
	"io"

	"sigs.k8s.io/yaml"
)

// PrintYAML writes v as YAML (through its JSON form, so JSON names and omitempty hold).
func PrintYAML(w io.Writer, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Clean returns obj's JSON form without the noise an unsent object carries
// (creationTimestamp: null, empty status), for printing.
func Clean(obj any) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		if md["creationTimestamp"] == nil {
			delete(md, "creationTimestamp")
		}
	}
	if st, ok := m["status"].(map[string]any); ok && isZero(st) {
		delete(m, "status")
	}
	return m, nil
}

// isZero is true for a map holding only zero values, recursively.
func isZero(m map[string]any) bool {
	for _, v := range m {
		switch x := v.(type) {
		case nil:
		case map[string]any:
			if !isZero(x) {
				return false
			}
		case float64:
			if x != 0 {
				return false
			}
		case string:
			if x != "" {
				return false
			}
		case bool:
			if x {
				return false
			}
		default:
			return false
		}
	}
	return true
}
