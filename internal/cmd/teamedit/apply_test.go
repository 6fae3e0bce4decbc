package teamedit

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// edits is a store that is a Team edit's Store and nothing more: the worked example's
// reads, a kind, and an UpdateTeam that answers Conflict a given number of times before it
// records the write.
type edits struct {
	store.Reader
	kind      store.Kind
	conflicts int
	written   []v1alpha1.TeamSpec
}

var _ Store = (*edits)(nil)

func (e *edits) Kind() store.Kind { return e.kind }

func (e *edits) UpdateTeam(_ context.Context, old, updated *v1alpha1.Team) (store.Result, error) {
	if e.conflicts > 0 {
		e.conflicts--
		return store.Result{}, apierrors.NewConflict(v1alpha1.Resource("teams"), old.Name, errors.New("the object has been modified"))
	}
	e.written = append(e.written, updated.Spec)
	return store.Result{Location: "team.yaml"}, nil
}

func describe(text string) Change {
	return func(old *v1alpha1.Team) (*v1alpha1.Team, error) {
		updated := old.DeepCopy()
		updated.Spec.Description = text
		return updated, nil
	}
}

// A Conflict is read again and the change made again on that read: one write, as the
// change wanted it.
func TestEditRetriesAConflict(t *testing.T) {
	e := &edits{Reader: storetest.Payments(t, "alice@example.com"), kind: store.Manifests, conflicts: 2}
	a, err := Edit(context.Background(), e, "payments", describe("payments, now"))
	if err != nil || len(e.written) != 1 || e.written[0].Description != "payments, now" || a.Updated == nil || a.Result.Location != "team.yaml" {
		t.Fatalf("%v; written %+v; applied %+v", err, e.written, a)
	}
}

// On manifests only the team's admins (and platform admins) may change a team: there is
// no RBAC behind the documents. Live the server's RBAC decides, so the same edit by an
// operator is sent.
func TestEditOnManifestsOnlyByTeamAdmins(t *testing.T) {
	ctx := context.Background()
	e := &edits{Reader: storetest.Payments(t, "bob@example.com"), kind: store.Manifests}
	if _, err := Edit(ctx, e, "payments", describe("bob was here")); cmdutil.CodeOf(err) != cmdutil.ExitDenied || len(e.written) != 0 {
		t.Errorf("manifests: exit %d: %v; written %+v", cmdutil.CodeOf(err), err, e.written)
	}
	e.kind = store.Live
	if _, err := Edit(ctx, e, "payments", describe("bob was here")); err != nil || len(e.written) != 1 {
		t.Errorf("live: %v; written %+v", err, e.written)
	}
}
