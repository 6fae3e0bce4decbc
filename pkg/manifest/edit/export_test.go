package edit

// What the tests of package edit_test reach: they read manifests with pkg/manifest, which
// imports this package, so they cannot be tests of this package itself.
var (
	EditDocument = editDocument
	ErrAnchored  = errAnchored
)

// Rendered is what Write would write, by file as the changes name it.
func Rendered(changes []Change) (map[string][]byte, error) {
	plans, err := plan(changes)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, p := range plans {
		out[p.path] = p.out
	}
	return out, nil
}
