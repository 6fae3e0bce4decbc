package manifest

import (
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// The interner shares repeated strings, also after its table filled up and started again.
func TestInterner(t *testing.T) {
	in := newInterner()
	for i := range 3 * internMaxEntries {
		in.str("once-" + strconv.Itoa(i))
	}
	a := in.str(string([]byte("team-15")))
	b := in.str(string([]byte("team-15")))
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("a repeated string is not shared after the table filled up")
	}
	if len(in.m) > internMaxEntries {
		t.Errorf("table holds %d strings, bound %d", len(in.m), internMaxEntries)
	}
	long := strings.Repeat("x", internMaxLen+1)
	if got := in.str(long); unsafe.StringData(got) != unsafe.StringData(long) || len(in.m) > internMaxEntries {
		t.Error("a long string was interned")
	}
	var none *interner
	if none.str("x") != "x" {
		t.Error("a nil interner changed a string")
	}
}
