package shared

import (
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// CheckEnvironment is the question create asks of --environment before anything else,
// shared so that `auth can-i create` asks exactly the same: a team that defines
// environments needs one (usage error, exit 2), and one of its names, matched as every
// command matches them (lookup.RequireEnvironment: not found, exit 3). A team without
// environments takes any label, as on the server.
func CheckEnvironment(t *v1alpha1.Team, env string) error {
	if len(t.Spec.Environments) == 0 {
		return nil
	}
	if env == "" {
		return cmdutil.UsageError("team %q defines environments; pass --environment with one of: %s", t.Name, strings.Join(lookup.EnvironmentNames(t), ", "))
	}
	_, err := lookup.RequireEnvironment(t, env)
	return err
}
