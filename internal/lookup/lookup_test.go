package lookup

import (
	"context"
	"errors"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/names"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// A team created between the get that missed it and the listing is still not found for
// this request: an error, never (nil, nil).
func TestTeamNotFoundWhenListedSinceTheGet(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	err := teamNotFound(context.Background(), s, "payments")
	var nf *names.NotFoundError
	if !errors.As(err, &nf) || nf.Name != "payments" {
		t.Fatalf("got %v, want a not-found error for payments", err)
	}
	for _, k := range nf.Known {
		if k == "payments" {
			t.Errorf("the missing team is listed among those that exist: %v", nf.Known)
		}
	}
}
