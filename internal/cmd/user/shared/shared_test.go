package shared

import (
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// The deprecated isPlatformAdmin still makes an admin; authType defaults to internal.
func TestRowOf(t *testing.T) {
	u := &v1alpha1.User{Spec: v1alpha1.UserSpec{Email: "x@example.com", IsPlatformAdmin: true}}
	if r := RowOf(u); r.PlatformRole != "admin" || r.Auth != "internal" {
		t.Errorf("%+v", r)
	}
	u.Spec.PlatformRole, u.Spec.AuthType = "viewer", "sso"
	if r := RowOf(u); r.PlatformRole != "viewer" || r.Auth != "sso" {
		t.Errorf("%+v", r)
	}
}
