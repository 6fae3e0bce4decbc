package offline

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// DeleteTeam implements store.TeamDeleter: the team's document goes from its file.
func (s *Store) DeleteTeam(_ context.Context, t *v1alpha1.Team) (store.Result, error) {
	s.mu.RLock()
	o := s.set.Find(v1alpha1.KindTeam, "", t.Name)
	var doc manifest.Object
	if o != nil {
		doc = *o
	}
	s.mu.RUnlock()
	if o == nil {
		return store.Result{}, apierrors.NewNotFound(v1alpha1.Resource("teams"), t.Name)
	}
	return s.deleteDocument(&doc, "team")
}
