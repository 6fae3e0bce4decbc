package store

import (
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ApplyBody is the JSON an apply sends for c: the object as written, without status (the
// server ignores it on the main resource, and a typed object always has one) and without
// the empty creationTimestamp a typed object marshals.
func ApplyBody(c any) ([]byte, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok && md["creationTimestamp"] == nil {
		delete(md, "creationTimestamp")
	}
	return json.Marshal(m)
}

// MergeApplied is cur with applied merged over it as a first server-side apply merges: the
// fields applied sets take its values, maps merge key by key, lists are replaced whole
// (Butler's lists are atomic), and what applied leaves out stays as cur has it. The
// preflight judges this result, and offline it is what the document becomes.
func MergeApplied(cur, applied *v1alpha1.TenantCluster) (*v1alpha1.TenantCluster, error) {
	out, err := merge(cur, applied)
	if err != nil {
		return nil, fmt.Errorf("merging tenantcluster %s/%s: %w", applied.Namespace, applied.Name, err)
	}
	return out, nil
}

// MergeAppliedObject is MergeApplied for any Butler object: applied merged over cur, into
// a new object of cur's type.
func MergeAppliedObject[T any, P interface{ *T }](cur, applied P) (P, error) {
	out, err := merge(cur, applied)
	if err != nil {
		return nil, fmt.Errorf("merging: %w", err)
	}
	return out, nil
}

// merge is applied merged over cur (a JSON merge patch of the apply body), decoded into a
// new object of cur's type.
func merge[T any, P interface{ *T }](cur, applied P) (P, error) {
	base, err := json.Marshal(cur)
	if err != nil {
		return nil, err
	}
	patch, err := ApplyBody(applied)
	if err != nil {
		return nil, err
	}
	merged, err := jsonpatch.MergePatch(base, patch)
	if err != nil {
		return nil, err
	}
	out := P(new(T))
	if err := json.Unmarshal(merged, out); err != nil {
		return nil, err
	}
	return out, nil
}
