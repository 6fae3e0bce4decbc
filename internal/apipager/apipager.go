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
	var out []T
	err := Pages(ctx, c, params, Request{PageSize: pageSize, Namespace: namespace, Resource: resource}, items,
		func(page []T, restart bool) error {
			if restart {
				out = nil
			}
			out = append(out, page...)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Request is one paged list: what, where, and the label selector the server applies.
type Request struct {
	PageSize            int64
	Namespace, Resource string
	// LabelSelector is sent to the server, so only matching objects cross the wire.
	LabelSelector string
}

// Pages lists r a page at a time and hands each page to fn as it arrives, so a caller
// can show the first rows before the last page is read. If the continue token expires
// mid-list, the list starts again with one unpaginated request, and fn is called with
// restart true: that page is the whole list, and what came before it is to be dropped.
func Pages[T any, L any, PL List[L]](ctx context.Context, c rest.Interface, params runtime.ParameterCodec, r Request, items func(PL) []T, fn func(page []T, restart bool) error) error {
	opts := metav1.ListOptions{Limit: r.PageSize, LabelSelector: r.LabelSelector}
	restart := false
	for {
		l := PL(new(L))
		err := c.Get().NamespaceIfScoped(r.Namespace, r.Namespace != "").Resource(r.Resource).
			VersionedParams(&opts, params).Do(ctx).Into(l)
		if err != nil && apierrors.IsResourceExpired(err) && opts.Continue != "" {
			opts, restart = metav1.ListOptions{LabelSelector: r.LabelSelector}, true
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(items(l), restart); err != nil {
			return err
		}
		restart = false
		next := l.GetContinue()
		if next == "" {
			return nil
		}
		opts.Continue = next
	}
}
