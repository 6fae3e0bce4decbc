package clusterttl

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func cluster(expires string) *v1alpha1.TenantCluster {
	c := &v1alpha1.TenantCluster{ObjectMeta: metav1.ObjectMeta{Name: "ci-1", Namespace: "payments"}}
	if expires != "" {
		c.Annotations = map[string]string{Annotation: expires}
	}
	return c
}

func TestLeft(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	human := func(d time.Duration) string { return d.String() }
	for _, tt := range []struct {
		expires, left string
	}{
		{"", "-"},
		{"2025-01-01T14:30:00Z", "2h30m0s"},
		{"2025-01-01T13:00:00+01:00", "expired"}, // the same instant as now
		{"2024-12-31T00:00:00Z", "expired"},
		{"tomorrow", "invalid"},
	} {
		c := cluster(tt.expires)
		if got := Left(c, now, human); got != tt.left {
			t.Errorf("Left(%q) = %q, want %q", tt.expires, got, tt.left)
		}
	}
}

func TestSetWritesUTCSeconds(t *testing.T) {
	c := cluster("")
	Set(c, time.Date(2025, 1, 1, 13, 0, 0, 500, time.FixedZone("CET", 3600)))
	if got := c.Annotations[Annotation]; got != "2025-01-01T12:00:00Z" {
		t.Errorf("annotation %q", got)
	}
}

func TestExpiryNamesTheAnnotation(t *testing.T) {
	_, _, err := Expiry(cluster("soon"))
	if err == nil || !strings.Contains(err.Error(), "payments/ci-1: metadata.annotations[butler.butlerlabs.dev/expires-at]") {
		t.Errorf("error %v", err)
	}
}
