package gitops

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// inDestination places what an Argo CD Application renders without a namespace in its
// spec.destination.namespace, as Argo CD applies it, so that a TenantCluster is judged in
// the team's namespace it lands in. Only kinds the tools read and know to be namespaced
// are placed (a Team, a User, a ClusterCreationPolicy stay cluster-scoped); the scope of
// another kind is the cluster's to say, and nothing judges it. The object is a copy: the
// tree's own, which other entries may render too, keeps what is written.
func inDestination(e *manifest.Object, out *output) {
	ns, _, _ := unstructured.NestedString(content(e), "spec", "destination", "namespace")
	if ns == "" {
		return
	}
	for i := range out.objects {
		o := &out.objects[i]
		if o.Namespace != "" || o.Obj == nil {
			continue
		}
		if namespaced, known := manifest.Namespaced(o.APIVersion, o.Kind); !namespaced || !known {
			continue
		}
		obj := o.Obj.DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			continue
		}
		m.SetNamespace(ns)
		o.Obj, o.Namespace = obj, ns
	}
}
