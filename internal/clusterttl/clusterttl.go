// Package clusterttl reads and writes a throwaway cluster's expiry: the annotation
// butler.butlerlabs.dev/expires-at, an absolute RFC 3339 time (docs/rules.md §1.3). An
// absolute time, not a duration, so that every reader (list, describe, reap, a person with
// kubectl) agrees on it without knowing when the cluster was created or extended.
package clusterttl

import (
	"fmt"
	"time"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Annotation is the expiry's key.
const Annotation = v1alpha1.AnnotationExpiresAt

// Expiry is c's expiry: ok false when c has none; an error naming the annotation when its
// value is no RFC 3339 time (such a cluster is never reaped: what cannot be read is refused).
func Expiry(c *v1alpha1.TenantCluster) (t time.Time, ok bool, err error) {
	v, has := c.Annotations[Annotation]
	if !has {
		return time.Time{}, false, nil
	}
	t, err = time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("TenantCluster %s/%s: metadata.annotations[%s]: %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", c.Namespace, c.Name, Annotation, v)
	}
	return t, true, nil
}

// Format is how the annotation writes t: UTC, whole seconds.
func Format(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// Set writes t as c's expiry.
func Set(c *v1alpha1.TenantCluster, t time.Time) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[Annotation] = Format(t)
}

// Left is the time left for a table: "-" without an expiry, "expired" once it passed,
// "invalid" when the annotation cannot be read, else the duration as kubectl prints ages.
func Left(c *v1alpha1.TenantCluster, now time.Time, human func(time.Duration) string) string {
	t, ok, err := Expiry(c)
	switch {
	case err != nil:
		return "invalid"
	case !ok:
		return "-"
	case !t.After(now):
		return "expired"
	}
	return human(t.Sub(now))
}

// Any reports whether one of clusters carries an expiry, so tables add their TTL column
// only when it says something.
func Any(clusters []v1alpha1.TenantCluster) bool {
	for i := range clusters {
		if _, has := clusters[i].Annotations[Annotation]; has {
			return true
		}
	}
	return false
}
