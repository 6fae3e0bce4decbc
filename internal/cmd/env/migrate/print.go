package migrate

import (
	"fmt"
	"io"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// fromText prints an environment label, "(unlabeled)" when there is none.
func fromText(env string) string {
	if env == "" {
		return "(unlabeled)"
	}
	return env
}

// printPlan prints the plan in butler-cli's form, then what is cleaned up and skipped, and
// the caps it goes past.
func printPlan(w io.Writer, p *policy.MigrationPlan) {
	fmt.Fprintf(w, "Migration plan: target environment %q (%d cluster(s))\n", p.Environment, len(p.Moves))
	for _, m := range p.Moves {
		fmt.Fprintf(w, "  %s  %s -> %s\n", m.Cluster, fromText(m.From), m.To)
	}
	if len(p.Cleanups) > 0 {
		fmt.Fprintf(w, "Already in %q, still carrying the %s annotation, which is removed (%d):\n",
			p.Environment, v1alpha1.AnnotationMigration, len(p.Cleanups))
		for _, m := range p.Cleanups {
			fmt.Fprintf(w, "  %s\n", m.Cluster)
		}
	}
	if len(p.Skipped) > 0 {
		fmt.Fprintf(w, "Skipped (%d):\n", len(p.Skipped))
		for _, s := range p.Skipped {
			fmt.Fprintf(w, "  %s  %s\n", s.Cluster, inert.Text(s.Message))
		}
	}
	if len(p.Excess) > 0 {
		if p.AllowOverQuota {
			fmt.Fprintf(w, "Over the caps of environment %q (allowed by --allow-over-quota):\n", p.Environment)
		} else {
			fmt.Fprintf(w, "Over the caps of environment %q (refused):\n", p.Environment)
		}
		for _, e := range p.Excess {
			fmt.Fprintf(w, "  %s\n", inert.Text(e.Message))
		}
	}
}

// printResults prints each cluster's outcome in plan order (successes on stdout, failures
// on stderr with the server's message) and the summary.
func printResults(o *Options, out *Output, results []Result, interrupted bool) {
	w, errOut := o.IO.Out, o.IO.ErrOut
	for _, r := range results {
		name := "tenantcluster.butler.butlerlabs.dev/" + r.Cluster
		switch r.Status {
		case StatusMigrated:
			fmt.Fprintf(w, "%s migrated: %s -> %s\n", name, fromText(r.From), r.To)
		case StatusCleaned:
			fmt.Fprintf(w, "%s: %s annotation removed\n", name, v1alpha1.AnnotationMigration)
		case StatusSkipped, StatusGone:
			fmt.Fprintf(w, "%s %s: %s\n", name, r.Status, inert.Text(r.Message))
		default:
			fmt.Fprintf(errOut, "error: %s %s: %s\n", r.Cluster, r.Status, inert.Text(r.Error))
		}
	}
	s := out.Summary
	parts := []string{fmt.Sprintf("%d migrated", s.Migrated)}
	if s.Cleaned > 0 {
		parts = append(parts, fmt.Sprintf("%d cleaned up", s.Cleaned))
	}
	parts = append(parts, fmt.Sprintf("%d skipped", s.Skipped))
	for _, x := range []struct {
		n    int
		what string
	}{{s.Gone, "gone"}, {s.Denied, "denied"}, {s.NotFound, "not found"}, {s.NotAttempted, "not attempted"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	parts = append(parts, fmt.Sprintf("%d failed", s.Failed))
	fmt.Fprintf(w, "Summary: %s\n", strings.Join(parts, ", "))
	if s.Migrated > 0 && o.Offline {
		// On manifests the files carry the label and the annotation the server needs to
		// accept it: the pull request check accepts that as a move.
		fmt.Fprintf(w, "Next: commit the edited files and merge them (`butlerctl check` accepts the %d move(s)); once they are applied, run the same command again to remove the %s annotation, and commit that.\n",
			s.Migrated, v1alpha1.AnnotationMigration)
	}
	if interrupted {
		fmt.Fprintf(errOut, "interrupted: run the same command again to finish; clusters already migrated are skipped\n")
	} else if s.Failed > 0 {
		fmt.Fprintf(errOut, "%d cluster(s) failed; the others were migrated. Run the same command again to retry them\n", s.Failed)
	}
}
