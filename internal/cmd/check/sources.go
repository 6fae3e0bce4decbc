package check

import (
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// validSources checks --source: each NAMESPACE/NAME of a GitRepository.
func validSources(sources []string) error {
	for _, s := range sources {
		ns, name, ok := strings.Cut(s, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			return cmdutil.UsageError("--source: %q is not NAMESPACE/NAME of a Flux GitRepository", s)
		}
	}
	return nil
}
