package yamldoc

// What a Load keeps of a tree is mostly its text: the keys of labels and annotations, and
// values that every object of a team or of the tree repeats (apiVersion, kind, namespaces,
// environments, versions, provider names). The parser gives each occurrence a string of its
// own; an Interner makes the objects share one. Each worker of a Load has its own (no lock
// on the hot path): at most one copy of a string per worker is kept.

const (
	// internMaxLen: longer strings (descriptions, certificates) rarely repeat.
	internMaxLen = 256
	// internMaxEntries bounds the table. When it is full it starts again empty: the strings
	// met once (names, addresses) go, and those that repeat are back at their next use, so
	// a tree read team by team keeps sharing past its first thousand objects, and a hostile
	// tree of distinct strings cannot grow the table.
	internMaxEntries = 1 << 14
)

// Interner maps a string to its shared copy; nil interns nothing.
type Interner struct {
	m map[string]string
}

// NewInterner returns an empty Interner.
func NewInterner() *Interner { return &Interner{m: make(map[string]string, 1024)} }

// Str returns the shared copy of s.
func (in *Interner) Str(s string) string {
	if in == nil || len(s) > internMaxLen || s == "" {
		return s
	}
	if v, ok := in.m[s]; ok {
		return v
	}
	if len(in.m) >= internMaxEntries {
		clear(in.m)
	}
	in.m[s] = s
	return s
}
