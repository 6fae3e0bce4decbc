package offline

import (
	"context"
	"errors"
	"maps"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// MigrateCluster implements store.Migrator on manifests: one in-place edit of the
// cluster's document. A move sets the environment label together with the migration
// annotation, as the first live patch does: that is the change a GitOps controller must
// apply for the server to accept the label change, and what `check` accepts as a move.
// A cluster already in the environment and still annotated has the annotation removed,
// the second step, made once the move is applied (running the same migration again).
// Only those lines of the file change; comments, the other keys and the other documents
// stay byte for byte.
//
// Optimistic concurrency, as live: if the cluster's labels or annotations are no longer
// what the caller read (another migration of this process wrote it meanwhile), the answer
// is a Conflict and nothing is written.
func (s *Store) MigrateCluster(_ context.Context, c *v1alpha1.TenantCluster, env string) (store.MigrateResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, cur, err := s.findCluster(c.Namespace, c.Name)
	if err != nil {
		return store.MigrateResult{}, err
	}
	if cur == nil {
		return store.MigrateResult{}, apierrors.NewNotFound(v1alpha1.Resource("tenantclusters"), c.Name)
	}
	if !maps.Equal(cur.Labels, c.Labels) || !maps.Equal(cur.Annotations, c.Annotations) {
		return store.MigrateResult{}, apierrors.NewConflict(v1alpha1.Resource("tenantclusters"), c.Name,
			errConflict)
	}
	src := obj.Source
	res := store.MigrateResult{Location: src.File}
	_, annotated := cur.Annotations[v1alpha1.AnnotationMigration]
	move := cur.Labels[v1alpha1.LabelEnvironment] != env
	if !move && !annotated {
		res.Cleaned = true
		return res, nil
	}
	if src.File == manifest.Stdin {
		return store.MigrateResult{}, storeerr.Missing(storeerr.NeedWritableSource, "cannot write: tenantcluster %q came from stdin", c.Name)
	}
	updated := cur.DeepCopy()
	if updated.Labels == nil {
		updated.Labels = map[string]string{}
	}
	if move {
		updated.Labels[v1alpha1.LabelEnvironment] = env
		if updated.Annotations == nil {
			updated.Annotations = map[string]string{}
		}
		updated.Annotations[v1alpha1.AnnotationMigration] = "true"
	} else {
		delete(updated.Annotations, v1alpha1.AnnotationMigration)
		if len(updated.Annotations) == 0 {
			updated.Annotations = nil
		}
	}
	if err := s.write([]manifest.Change{{Source: &src, Obj: updated}}); err != nil {
		return store.MigrateResult{}, err
	}
	s.written(obj, updated)
	res.Labeled, res.Cleaned = move, !move
	return res, nil
}

// errConflict is the API server's words for a stale resourceVersion.
var errConflict = errors.New("the object has been modified; please apply your changes to the latest version and try again")
