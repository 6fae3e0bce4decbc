// Package apipager lists every object of a resource through a REST client, a page at a
// time, for the live store and the webhook alike.
package apipager

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// List is what every generated *XList is: a runtime.Object with a continue token.
type List[L any] interface {
	*L
	runtime.Object
	GetContinue() string
}

// ListAll lists every object of resource in namespace ("" for all namespaces or a
// cluster-scoped resource), pageSize at a time. If the continue token expires before the
// last page (the server compacted past the list's snapshot, on a very large or slow list),
// it starts again with one unpaginated list, so the result is always one consistent view.
func ListAll[T any, L any, PL List[L]](ctx context.Context, c rest.Interface, params runtime.ParameterCodec, pageSize int64, namespace, resource string, items func(PL) []T) ([]T, error) {
	opts := metav1.ListOptions{Limit: pageSize}
	var out []T
	for {
		l := PL(new(L))
		err := c.Get().NamespaceIfScoped(namespace, namespace != "").Resource(resource).
			VersionedParams(&opts, params).Do(ctx).Into(l)
		if err != nil && apierrors.IsResourceExpired(err) && opts.Continue != "" {
			out, opts = nil, metav1.ListOptions{}
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, items(l)...)
		next := l.GetContinue()
		if next == "" {
			return out, nil
		}
		opts.Continue = next
	}
}
