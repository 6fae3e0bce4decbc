package manifest

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// ClusterCreationPolicies returns every ClusterCreationPolicy.
func (s *Set) ClusterCreationPolicies() []*v1alpha1.ClusterCreationPolicy {
	return typed[*v1alpha1.ClusterCreationPolicy](s)
}

// ClusterCreationPolicy returns the ClusterCreationPolicy with that name, or nil.
func (s *Set) ClusterCreationPolicy(name string) *v1alpha1.ClusterCreationPolicy {
	return find[*v1alpha1.ClusterCreationPolicy](s, v1alpha1.KindClusterCreationPolicy, "", name)
}

// celRules are the CRDs' x-kubernetes-validations (CEL), which the schema walk does not
// evaluate, written out in Go with the API server's message.
func celRules(obj runtime.Object) field.ErrorList {
	if pc, ok := obj.(*v1alpha1.ProviderConfig); ok {
		if err := pc.Spec.ValidateCredentialsRef(field.NewPath("spec")); err != nil {
			return field.ErrorList{err}
		}
	}
	if p, ok := obj.(*v1alpha1.ClusterCreationPolicy); ok {
		if err := p.Spec.Scope.Validate(field.NewPath("spec", "scope")); err != nil {
			return field.ErrorList{err}
		}
	}
	return nil
}
