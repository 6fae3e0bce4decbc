package yamldoc

import "strings"

// FieldSteps splits a field path into its steps: "a.b[c.d][0]" gives a, b, c.d, 0, as
// "a.b.c.d" would not; a key in brackets is one step.
func FieldSteps(p string) []string {
	var out []string
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(out, p[1:])
			}
			out = append(out, p[1:end])
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				return append(out, p)
			}
			out = append(out, p[:end])
			p = p[end:]
		}
	}
	return out
}

// PrefixOf reports whether the steps a begin the steps b (and a is not empty).
func PrefixOf(a, b []string) bool {
	if len(a) > len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
