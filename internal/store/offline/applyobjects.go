package offline

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// ApplyObjects implements store.ObjectApplier on manifests as ApplyClusters does: every
// object's document is worked out first (merged over the existing one, edited in place
// keeping comments, or a new file under teams/, policies/ or providers/), then all are
// written in one manifest.Write, so a failure of one writes none.
func (s *Store) ApplyObjects(_ context.Context, objs []store.Object, o store.ApplyOptions) ([]store.AppliedObject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]store.AppliedObject, len(objs))
	var changes []manifest.Change
	newFiles := map[string]string{}
	for i, obj := range objs {
		kind, sub, err := applyKind(obj)
		if err != nil {
			return nil, err
		}
		resource, namespaced := store.ApplyResource(kind)
		ns := obj.GetNamespace()
		if !namespaced {
			ns = ""
		}
		doc := s.set.Find(kind, ns, obj.GetName())
		if doc == nil {
			file, err := s.target(sub, obj.GetName())
			if err != nil {
				return nil, err
			}
			key := kind + " " + ns + "/" + obj.GetName()
			if prev, ok := newFiles[file]; ok && prev != key && file != s.paths[0] {
				return nil, fmt.Errorf("cannot write %s and %s to one new file %s: %w", prev, key, file, storeerr.ErrFileExists)
			}
			newFiles[file] = key
			changes = append(changes, manifest.Change{File: file, Obj: obj})
			out[i] = store.AppliedObject{Object: obj, Location: file}
			continue
		}
		merged, err := mergeOver(doc.Obj, obj)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", strings.TrimSuffix(resource, "s"), obj.GetName(), err)
		}
		src := doc.Source
		out[i] = store.AppliedObject{Object: merged, Location: src.File}
		if equality.Semantic.DeepEqual(doc.Obj, merged) {
			continue // unchanged: its file is not touched
		}
		if src.File == manifest.Stdin {
			return nil, storeerr.Missing(storeerr.NeedWritableSource, "cannot write: %s %q came from stdin", kind, obj.GetName())
		}
		changes = append(changes, manifest.Change{Source: &src, Obj: merged})
	}
	if o.DryRun || len(changes) == 0 {
		return out, nil
	}
	if err := s.write(changes); err != nil {
		return nil, err
	}
	s.reloadLocked(changes)
	return out, nil
}

// applyKind is the kind of obj and the directory a new one of it goes to.
func applyKind(obj store.Object) (kind, sub string, err error) {
	switch obj.(type) {
	case *v1alpha1.Team:
		return v1alpha1.KindTeam, "teams", nil
	case *v1alpha1.ClusterCreationPolicy:
		return v1alpha1.KindClusterCreationPolicy, "policies", nil
	case *v1alpha1.ProviderConfig:
		return v1alpha1.KindProviderConfig, "providers", nil
	}
	return "", "", fmt.Errorf("internal error: apply of a %T", obj)
}

// mergeOver is applied merged over the document's object (store.MergeAppliedObject).
func mergeOver(cur any, applied store.Object) (store.Object, error) {
	switch a := applied.(type) {
	case *v1alpha1.Team:
		if c, ok := cur.(*v1alpha1.Team); ok {
			return store.MergeAppliedObject(c, a)
		}
	case *v1alpha1.ClusterCreationPolicy:
		if c, ok := cur.(*v1alpha1.ClusterCreationPolicy); ok {
			return store.MergeAppliedObject(c, a)
		}
	case *v1alpha1.ProviderConfig:
		if c, ok := cur.(*v1alpha1.ProviderConfig); ok {
			return store.MergeAppliedObject(c, a)
		}
	}
	return nil, fmt.Errorf("internal error: the document is a %T, the object applied a %T", cur, applied)
}

// reloadLocked reads the files written again, so later reads see the objects as written.
// The caller holds s.mu.
func (s *Store) reloadLocked(changes []manifest.Change) {
	s.mu.Unlock()
	defer s.mu.Lock()
	done := map[string]bool{}
	for _, c := range changes {
		file := c.File
		if c.Source != nil {
			file = c.Source.File
		}
		if !done[file] {
			done[file] = true
			s.reload(file)
		}
	}
}
