package schema

import (
	"fmt"
	"reflect"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// Kind describes a kind the toolkit decodes into a Go type: an entry of its kind table.
type Kind struct {
	gvk        schema.GroupVersionKind
	typ        reflect.Type // the struct type
	strict     bool         // refuse unknown fields
	namespaced bool
	crd        string                     // file name of its CRD in config/crd
	typeMeta   []int                      // index of its metav1.TypeMeta (nil: none)
	schema     atomic.Pointer[jsonSchema] // schemaFor's, once read
}

var typeMetaType = reflect.TypeOf(metav1.TypeMeta{})

// GVK is the kind's group, version and kind.
func (ki *Kind) GVK() schema.GroupVersionKind { return ki.gvk }

// Namespaced reports whether objects of the kind live in a namespace.
func (ki *Kind) Namespaced() bool { return ki.namespaced }

// Kinds lists the kinds the toolkit decodes into Go types, in no order.
func Kinds() []*Kind {
	out := make([]*Kind, 0, len(knownKinds))
	for _, ki := range knownKinds {
		out = append(out, ki)
	}
	return out
}

// SetType sets the apiVersion and kind of obj, a new object of kind ki, as read: what
// meta.TypeAccessor sets, written in place. apiVersion is one KindFor found ki by, so
// it is already in the form the accessor would write.
func (ki *Kind) SetType(obj runtime.Object, apiVersion, kind string) {
	if ki.typeMeta == nil {
		if ta, err := meta.TypeAccessor(obj); err == nil {
			ta.SetAPIVersion(apiVersion)
			ta.SetKind(kind)
		}
		return
	}
	tm := reflect.ValueOf(obj).Elem().FieldByIndex(ki.typeMeta).Addr().Interface().(*metav1.TypeMeta)
	tm.APIVersion, tm.Kind = apiVersion, kind
}

var knownKinds = func() map[schema.GroupVersionKind]*Kind {
	m := map[schema.GroupVersionKind]*Kind{}
	add := func(obj runtime.Object, gv schema.GroupVersion, kind string, strict, namespaced bool, plural string) {
		gvk := gv.WithKind(kind)
		ki := &Kind{gvk: gvk, typ: reflect.TypeOf(obj).Elem(), strict: strict, namespaced: namespaced,
			crd: gv.Group + "_" + plural + ".yaml"}
		if f, ok := ki.typ.FieldByName("TypeMeta"); ok && f.Type == typeMetaType && f.Anonymous {
			ki.typeMeta = f.Index
		}
		m[gvk] = ki
	}
	b := v1alpha1.GroupVersion
	add(&v1alpha1.Team{}, b, v1alpha1.KindTeam, true, false, "teams")
	add(&v1alpha1.TenantCluster{}, b, v1alpha1.KindTenantCluster, true, true, "tenantclusters")
	add(&v1alpha1.ProviderConfig{}, b, v1alpha1.KindProviderConfig, true, true, "providerconfigs")
	add(&v1alpha1.User{}, b, v1alpha1.KindUser, true, false, "users")
	add(&v1alpha1.IdentityProvider{}, b, v1alpha1.KindIdentityProvider, true, false, "identityproviders")
	add(&v1alpha1.TenantAddon{}, b, v1alpha1.KindTenantAddon, true, true, "tenantaddons")
	add(&v1alpha1.ClusterCreationPolicy{}, b, v1alpha1.KindClusterCreationPolicy, true, false, "clustercreationpolicies")
	add(&v1alpha1.NetworkPool{}, b, v1alpha1.KindNetworkPool, true, true, "networkpools")
	add(&v1alpha1.IPAllocation{}, b, v1alpha1.KindIPAllocation, true, true, "ipallocations")
	// Only part of TenantControlPlane is typed and its CRD keeps unknown fields, so unknown
	// fields are allowed (and kept on write); types are still checked.
	add(&stewardv1alpha1.TenantControlPlane{}, stewardv1alpha1.GroupVersion, "TenantControlPlane", false, true, "tenantcontrolplanes")
	return m
}()

// KindFor returns the known kind of an apiVersion/kind pair, nil for other kinds, or an
// error for a known kind under a version of its group that the toolkit does not read.
func KindFor(apiVersion, kind string) (*Kind, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("invalid apiVersion %q", apiVersion)
	}
	if ki, ok := knownKinds[gv.WithKind(kind)]; ok {
		return ki, nil
	}
	for gvk := range knownKinds {
		if gvk.Group == gv.Group && gvk.Kind == kind {
			return nil, fmt.Errorf("unsupported apiVersion %q for %s: the toolkit reads %s", apiVersion, kind, gvk.GroupVersion())
		}
	}
	return nil, nil
}

// NewTyped returns a new typed object of a known kind.
func (ki *Kind) NewTyped() runtime.Object {
	return reflect.New(ki.typ).Interface().(runtime.Object)
}
