package teamedit

import (
	"context"
	"fmt"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Admitter is what Admit reads: who asks (store.Reader), and which store it is (offline,
// where no RBAC stands behind the documents, the Team's own mutation authority applies).
type Admitter interface {
	store.Reader
	store.Kinded
}

// Store is what a Team edit (Apply, ChangeMembers) reads and writes: the team and who
// asks, which store it is, and the one write.
type Store interface {
	Admitter
	UpdateTeam(ctx context.Context, old, updated *v1alpha1.Team) (store.Result, error)
}

var _ Store = store.Store(nil)

// Admit asks who is acting and applies the Team webhook's rules to the change (old is nil
// on create). A denial is the webhook's plain message, exit 4.
func Admit(ctx context.Context, s Admitter, op policy.Operation, old, updated *v1alpha1.Team) (lookup.Actor, error) {
	actor, err := lookup.WhoAmI(ctx, s)
	if err != nil {
		return lookup.Actor{}, err
	}
	if d := policy.AdmitTeam(op, old, updated, actor.Identity, actor.PlatformAdmin); d != nil {
		return actor, cmdutil.DeniedError(d)
	}
	// Live, the server's RBAC decides who may write a Team at all. Offline there is none, so
	// apply the documents' mutation authority: team admins of the team and platform admins.
	if s.Kind() == store.Manifests && op == policy.Update && old != nil && !policy.IsTeamAdmin(old, actor.Identity, actor.PlatformAdmin) {
		return actor, cmdutil.DeniedError(fmt.Errorf("user %q may not change team %q: only its team admins and platform admins may", actor.Identity.Username, old.Name))
	}
	return actor, nil
}

// FindEnvironment finds an environment by name: the exact name first, else the one whose
// name matches case-insensitively (policy.SameEnvironment). -1 when none.
func FindEnvironment(t *v1alpha1.Team, name string) int {
	for i := range t.Spec.Environments {
		if t.Spec.Environments[i].Name == name {
			return i
		}
	}
	for i := range t.Spec.Environments {
		if policy.SameEnvironment(t.Spec.Environments[i].Name, name) {
			return i
		}
	}
	return -1
}

// ResourceName is the kubectl-style name of a team: team.butler.butlerlabs.dev/NAME.
func ResourceName(team string) string { return "team.butler.butlerlabs.dev/" + team }
