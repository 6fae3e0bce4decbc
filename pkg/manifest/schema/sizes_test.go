package schema

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// tooLarge answers as the exact comparison with 4Ei, at the bound and far from it.
func TestTooLarge(t *testing.T) {
	for _, s := range []string{"0", "500m", "16Gi", "4Ei", "4096Pi", "4097Pi", "4611686018427387904",
		"4611686018427387905", "4611686018427387904000m", "4611686018427387904001m", "1e19", "8E", "-1e30", "2305843009213693952"} {
		q := resource.MustParse(s)
		cp := q.DeepCopy()
		want := cp.Cmp(maxQuantity) > 0
		if got := tooLarge(&q); got != want {
			t.Errorf("%s: tooLarge %v, want %v", s, got, want)
		}
		orig := resource.MustParse(s)
		if q.String() != orig.String() {
			t.Errorf("%s: changed to %s", s, q.String())
		}
	}
}
