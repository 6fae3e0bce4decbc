package live

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ApplyObjects implements store.ObjectApplier: one server-side apply patch per object, in
// order, one at a time (operators apply a handful of teams and policies, and a team's
// order can matter to the policies naming it), each under the store's request deadline.
func (s *Store) ApplyObjects(ctx context.Context, objs []store.Object, o store.ApplyOptions) ([]store.AppliedObject, error) {
	c, err := s.unthrottled()
	if err != nil {
		return nil, err
	}
	out := make([]store.AppliedObject, len(objs))
	for i, obj := range objs {
		if err := ctx.Err(); err != nil {
			out[i].Err = err
			continue
		}
		out[i] = applyObject(ctx, c, obj, o)
		if o.Done != nil {
			o.Done()
		}
	}
	return out, nil
}

// applyObject sends one apply patch and keeps the server's answer in a new object of obj's
// kind.
func applyObject(ctx context.Context, bc *butlerclient.Client, obj store.Object, o store.ApplyOptions) store.AppliedObject {
	var got store.Object
	var kind string
	switch obj.(type) {
	case *v1alpha1.Team:
		got, kind = &v1alpha1.Team{}, v1alpha1.KindTeam
	case *v1alpha1.ClusterCreationPolicy:
		got, kind = &v1alpha1.ClusterCreationPolicy{}, v1alpha1.KindClusterCreationPolicy
	case *v1alpha1.ProviderConfig:
		got, kind = &v1alpha1.ProviderConfig{}, v1alpha1.KindProviderConfig
	default:
		return store.AppliedObject{Err: fmt.Errorf("internal error: apply of a %T", obj)}
	}
	resource, namespaced := store.ApplyResource(kind)
	body, err := store.ApplyBody(obj)
	if err != nil {
		return store.AppliedObject{Err: err}
	}
	req := bc.Patch(types.ApplyPatchType).Resource(resource).Name(obj.GetName()).
		Param("fieldManager", o.FieldManager).Body(body)
	if namespaced {
		req = req.Namespace(obj.GetNamespace())
	}
	if o.Force {
		req = req.Param("force", "true")
	}
	if o.DryRun {
		req = req.Param("dryRun", metav1.DryRunAll)
	}
	if err := req.Do(ctx).Into(got); err != nil {
		return store.AppliedObject{Err: apiError(err)}
	}
	tm, err := metaOf(got)
	if err != nil {
		return store.AppliedObject{Err: err}
	}
	clean(tm, objectMeta(got), kind)
	return store.AppliedObject{Object: got}
}

// metaOf is the TypeMeta of one of the kinds ApplyObjects takes.
func metaOf(o store.Object) (*metav1.TypeMeta, error) {
	switch t := o.(type) {
	case *v1alpha1.Team:
		return &t.TypeMeta, nil
	case *v1alpha1.ClusterCreationPolicy:
		return &t.TypeMeta, nil
	case *v1alpha1.ProviderConfig:
		return &t.TypeMeta, nil
	}
	return nil, fmt.Errorf("internal error: apply of a %T", o)
}

func objectMeta(o store.Object) *metav1.ObjectMeta {
	switch t := o.(type) {
	case *v1alpha1.Team:
		return &t.ObjectMeta
	case *v1alpha1.ClusterCreationPolicy:
		return &t.ObjectMeta
	case *v1alpha1.ProviderConfig:
		return &t.ObjectMeta
	}
	return &metav1.ObjectMeta{}
}
