package teamedit

import (
	"context"
	"fmt"
	"io"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// WarnBelowUsage warns on errOut, with the figures, about each limit a written change set
// below what the team's clusters already use (policy.NewlyBelowUsage): the server accepts
// such a limit, and then refuses creates and scale-ups. Nothing when nothing was written.
func WarnBelowUsage(ctx context.Context, s store.Reader, a Applied, errOut io.Writer) {
	if a.Updated == nil {
		return
	}
	clusters, err := s.ListClusters(ctx, a.Updated.TeamNamespace())
	if err != nil {
		fmt.Fprintf(errOut, "Warning: the new limits are not compared with the team's usage: reading its clusters: %v\n", err)
		return
	}
	for _, w := range policy.NewlyBelowUsage(a.Old, a.Updated, clusters) {
		fmt.Fprintf(errOut, "Warning: %s\n", inert.Line(w)) // names and e-mails from manifests
	}
}
