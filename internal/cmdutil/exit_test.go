package cmdutil

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestCodeOf(t *testing.T) {
	gr := schema.GroupResource{Group: "butler.butlerlabs.dev", Resource: "teams"}
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"plain", errors.New("boom"), ExitFailure},
		{"usage", UsageError("bad %s", "flag"), ExitUsage},
		{"not found", NotFoundError("team %q not found", "x"), ExitNotFound},
		{"denied", DeniedError(errors.New("no")), ExitDenied},
		{"wrapped usage", fmt.Errorf("ctx: %w", UsageError("bad")), ExitUsage},
		{"silent", &SilentError{Code: ExitDenied}, ExitDenied},
	}
	for _, c := range cases {
		if got := CodeOf(c.err); got != c.want {
			t.Errorf("%s: CodeOf = %d, want %d", c.name, got, c.want)
		}
	}
	api := []struct {
		err  error
		want int
	}{
		{apierrors.NewNotFound(gr, "x"), ExitNotFound},
		{apierrors.NewForbidden(gr, "x", errors.New("webhook denied")), ExitDenied},
		{apierrors.NewBadRequest("bad"), ExitUsage},
		{apierrors.NewAlreadyExists(gr, "x"), ExitFailure},
	}
	for _, c := range api {
		if got := CodeOfAPI(c.err); got != c.want {
			t.Errorf("CodeOfAPI(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}
