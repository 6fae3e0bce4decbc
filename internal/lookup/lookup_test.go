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

// On manifests OfflineActor reads who asks, to be judged; live it reads nothing (no
// identity is needed: the server decides) and says so.
func TestOfflineActorJudgesOnManifestsOnly(t *testing.T) {
	ctx := context.Background()
	s := storetest.Payments(t, "olivia@example.com")
	a, judge, err := OfflineActor(ctx, s)
	if err != nil || !judge || a.Identity.Username != "olivia@example.com" || !a.PlatformAdmin {
		t.Errorf("manifests: %+v, judge %v, %v", a, judge, err)
	}
	live := storetest.Payments(t, "") // no identity: reading it would fail
	live.Live = &storetest.Server{}
	if a, judge, err := OfflineActor(ctx, live); err != nil || judge || a.Identity.Username != "" {
		t.Errorf("live: %+v, judge %v, %v", a, judge, err)
	}
	if _, judge, err := OfflineActor(ctx, storetest.Payments(t, "")); err == nil || judge {
		t.Errorf("manifests without an identity: judge %v, %v", judge, err)
	}
}
