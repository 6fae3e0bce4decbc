package manifesttest

import (
	"math"
	"testing"
)

// InMode makes every Load of the test keep its clusters whole (records false) or every
// one it can as a record, by setting wholeBytes (&manifest.WholeBytes, the one place the
// memory mode is decided) until the test ends. A pointer, not an import: pkg/manifest's
// own tests use this package.
func InMode(t testing.TB, wholeBytes *int64, records bool) {
	t.Helper()
	old := *wholeBytes
	t.Cleanup(func() { *wholeBytes = old })
	*wholeBytes = math.MaxInt64
	if records {
		*wholeBytes = 0
	}
}
