// Package butlerclient is how the toolkit talks to an API server: the REST client of
// butler.butlerlabs.dev/v1alpha1 on the project's own scheme (the typed structs every
// command and pkg/policy use, JSON, lists a page at a time), the same for another custom
// resource group (Steward's), and what every client of the tools gets: a User-Agent naming
// the binary and its version, and deadlines (deadline.go).
//
// The live store, its migration path and the webhook's reader all build their Butler
// client here, so they decode, page and identify themselves the same way.
package butlerclient

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/apipager"
	"github.com/butlerdotdev/butler-toolkit/internal/buildinfo"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// PageSize is the number of objects asked for per list request: a namespace with thousands
// of TenantClusters never needs one huge response.
const PageSize = 500

// Client is a REST client of one API group and version, with its scheme's parameter codec
// (for list options).
type Client struct {
	rest.Interface
	Params runtime.ParameterCodec
}

// New is the REST client of butler.butlerlabs.dev/v1alpha1 on a copy of cfg.
func New(cfg *rest.Config) (*Client, error) {
	return NewForGroup(cfg, v1alpha1.GroupVersion, v1alpha1.AddToScheme)
}

// NewForGroup is the REST client of a custom resource group and version on a copy of cfg,
// decoding into the types add registers. Custom resources are served as JSON only.
func NewForGroup(cfg *rest.Config, gv schema.GroupVersion, add func(*runtime.Scheme) error) (*Client, error) {
	scheme := runtime.NewScheme()
	if err := add(scheme); err != nil {
		return nil, err
	}
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &gv
	c.APIPath = "/apis"
	c.ContentType = runtime.ContentTypeJSON
	c.AcceptContentTypes = runtime.ContentTypeJSON
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, err
	}
	return &Client{Interface: rc, Params: runtime.NewParameterCodec(scheme)}, nil
}

// List lists every object of resource in namespace ("" for all namespaces or a
// cluster-scoped resource), PageSize at a time, in one consistent view (apipager.ListAll).
func List[T any, L any, PL apipager.List[L]](ctx context.Context, c *Client, namespace, resource string, items func(PL) []T) ([]T, error) {
	return apipager.ListAll(ctx, c.Interface, c.Params, PageSize, namespace, resource, items)
}

// UserAgent is what the binary named binary sends: "butlerctl/v1.2.3", with the version of
// internal/buildinfo.
func UserAgent(binary string) string {
	return binary + "/" + buildinfo.Get().Version
}
