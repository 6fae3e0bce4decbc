package doctor

import (
	"context"
	"encoding/json"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
)

// clients are REST clients of the few groups the checks read, on the project's way of
// building one (butlerclient.NewForGroup): no typed clientset of every group linked in.
type clients struct {
	crds, webhooks, apps, slices *butlerclient.Client
}

func newClients(cfg *rest.Config) (*clients, error) {
	withMeta := func(add func(*runtime.Scheme) error) func(*runtime.Scheme) error {
		return func(s *runtime.Scheme) error {
			metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
			return add(s)
		}
	}
	var c clients
	var err error
	for _, g := range []struct {
		into *(*butlerclient.Client)
		gv   schema.GroupVersion
		add  func(*runtime.Scheme) error
	}{
		{&c.crds, apiextensionsv1.SchemeGroupVersion, apiextensionsv1.AddToScheme},
		{&c.webhooks, admissionregistrationv1.SchemeGroupVersion, admissionregistrationv1.AddToScheme},
		{&c.apps, appsv1.SchemeGroupVersion, appsv1.AddToScheme},
		{&c.slices, discoveryv1.SchemeGroupVersion, discoveryv1.AddToScheme},
	} {
		if *g.into, err = butlerclient.NewForGroup(cfg, g.gv, withMeta(g.add)); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// serverVersion is GET /version.
func (c *clients) serverVersion(ctx context.Context) (version.Info, error) {
	var v version.Info
	raw, err := c.crds.Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return v, err
	}
	return v, json.Unmarshal(raw, &v)
}

// get reads one object of resource (namespace "" for cluster-scoped ones).
func get(ctx context.Context, c *butlerclient.Client, namespace, resource, name string, into runtime.Object) error {
	return c.Get().NamespaceIfScoped(namespace, namespace != "").Resource(resource).Name(name).Do(ctx).Into(into)
}
