package teamedit

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"

	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Change makes the edit of a command on a copy of old and returns it; nil when there is
// nothing to change. It runs again on each fresh read, so its own checks (does the
// environment exist, is the name taken) see the team as it is now.
type Change func(old *v1alpha1.Team) (*v1alpha1.Team, error)

// Applied is what Apply did: the team it read last, the team it wrote (nil when nothing
// changed) and where the write went.
type Applied struct {
	Old, Updated *v1alpha1.Team
	Result       store.Result
}

// Edit reads the team named name and writes change to it through Apply.
func Edit(ctx context.Context, s Store, name string, change Change) (Applied, error) {
	team, err := lookup.Team(ctx, s, name)
	if err != nil {
		return Applied{}, err
	}
	return Apply(ctx, s, team, change)
}

// Apply writes change to the team read as team: it checks the Team rules (Admit), then
// the store patches the spec with team's resourceVersion as precondition. When someone
// else changed the team in between, the server answers 409 Conflict; Apply then reads the
// team again and applies change to that read, a few times at most (client-go's
// retry.DefaultRetry), so a concurrent edit is neither overwritten nor lost, and rules
// are checked against what is there.
func Apply(ctx context.Context, s Store, team *v1alpha1.Team, change Change) (Applied, error) {
	var a Applied
	old := team
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if old == nil {
			var err error
			if old, err = lookup.Team(ctx, s, team.Name); err != nil {
				return err
			}
		}
		a = Applied{Old: old}
		updated, err := change(old)
		if err != nil || updated == nil {
			return err
		}
		if _, err := Admit(ctx, s, policy.Update, old, updated); err != nil {
			return err
		}
		res, err := s.UpdateTeam(ctx, old, updated)
		if err != nil {
			if apierrors.IsConflict(err) {
				old = nil // read again
			}
			return err
		}
		a.Updated, a.Result = updated, res
		return nil
	})
	return a, err
}
