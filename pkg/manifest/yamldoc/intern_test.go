package yamldoc

import (
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// The Interner shares repeated strings, also after its table filled up and started again.
func TestInterner(t *testing.T) {
	in := NewInterner()
	for i := range 3 * internMaxEntries {
		in.Str("once-" + strconv.Itoa(i))
	}
	a := in.Str(string([]byte("team-15")))
	b := in.Str(string([]byte("team-15")))
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("a repeated string is not shared after the table filled up")
	}
	if len(in.m) > internMaxEntries {
		t.Errorf("table holds %d strings, bound %d", len(in.m), internMaxEntries)
	}
	long := strings.Repeat("x", internMaxLen+1)
	if got := in.Str(long); unsafe.StringData(got) != unsafe.StringData(long) || len(in.m) > internMaxEntries {
		t.Error("a long string was interned")
	}
	var none *Interner
	if none.Str("x") != "x" {
		t.Error("a nil Interner changed a string")
	}
}
