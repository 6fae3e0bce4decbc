package completion

import "sort"

// ArgPaths are the command paths that have a positional-argument completion.
func ArgPaths() []string {
	out := make([]string, 0, len(argNames))
	for p := range argNames {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
