package lookup

import (
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// CreateEnvironment is the question `cluster create` asks of --environment before anything
// else, so that `auth can-i create` asks exactly the same: a team that defines
// environments needs one (usage error, exit 2). An unknown name is left to the admission
// rules, which refuse it in the server's words (exit 4).
func CreateEnvironment(t *v1alpha1.Team, env string) error {
	if env == "" && len(t.Spec.Environments) > 0 {
		return cmdutil.UsageError("team %q defines environments; pass --environment with one of: %s", t.Name, strings.Join(EnvironmentNames(t), ", "))
	}
	return nil
}
