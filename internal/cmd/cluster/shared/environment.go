package shared

import (
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// CheckEnvironment is the question create asks of --environment before anything else,
// shared so that `auth can-i create` asks exactly the same: a team that defines
// environments needs one (usage error, exit 2). An unknown name is left to the admission
// rules, which refuse it in the server's words (exit 4).
func CheckEnvironment(t *v1alpha1.Team, env string) error {
	if env == "" && len(t.Spec.Environments) > 0 {
		return cmdutil.UsageError("team %q defines environments; pass --environment with one of: %s", t.Name, strings.Join(lookup.EnvironmentNames(t), ", "))
	}
	return nil
}
