package clusterview

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// A Table built a page at a time holds the rows Doc gives for the whole list, with the TTL
// column exactly when one cluster of any page has an expiry, and no objects.
func TestTableAsDoc(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var clusters []v1alpha1.TenantCluster
	for i := range 7 {
		c := v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i), Namespace: "team-a",
			CreationTimestamp: metav1.NewTime(now.Add(-time.Duration(i) * time.Hour))}}
		c.Spec.TeamRef = &v1alpha1.LocalObjectReference{Name: "a"}
		c.Spec.KubernetesVersion = "v1.31.0"
		c.Spec.Workers.Replicas = int32(i)
		clusters = append(clusters, c)
	}
	expiring := append([]v1alpha1.TenantCluster(nil), clusters...)
	expiring[5].Annotations = map[string]string{v1alpha1.AnnotationExpiresAt: now.Add(3 * time.Hour).Format(time.RFC3339)}
	for _, list := range [][]v1alpha1.TenantCluster{clusters, expiring} {
		for _, withNS := range []bool{false, true} {
			want := Doc(list, withNS, nil, false, now)
			tb := NewTable(withNS, now)
			for i := 0; i < len(list); i += 3 {
				page := append([]v1alpha1.TenantCluster(nil), list[i:min(i+3, len(list))]...)
				tb.Add(page)
			}
			got := tb.Doc()
			if !reflect.DeepEqual(got.Header, want.Header) || len(got.Items) != len(want.Items) {
				t.Fatalf("header %v (%d rows), want %v (%d)", got.Header, len(got.Items), want.Header, len(want.Items))
			}
			for i := range got.Items {
				if got.Items[i].Object != nil || !reflect.DeepEqual(got.Items[i].Cells, want.Items[i].Cells) {
					t.Errorf("row %d: %v, want %v", i, got.Items[i].Cells, want.Items[i].Cells)
				}
			}
		}
	}
}
