package migrate

import (
	"fmt"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/prompt"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// declined is the message of a declined question; %q is what was typed.
const declined = "migration cancelled: input %q"

// confirm asks on a terminal, or requires --yes without one.
func confirm(o *Options, p *policy.MigrationPlan) error {
	pr := prompt.New(o.IO)
	relabels := p.Relabels()
	if !pr.CanPrompt() {
		if o.Yes {
			return nil
		}
		if relabels > 0 {
			return cmdutil.UsageError("--relabel rewrites the environment of %d cluster(s) already in another environment: pass --yes to confirm (there is no terminal to ask on)", relabels)
		}
		return cmdutil.UsageError("migrating %d cluster(s) into environment %q needs confirmation: pass --yes (there is no terminal to ask on)",
			len(p.Moves)+len(p.Cleanups), p.Environment)
	}
	if !o.Yes {
		q := fmt.Sprintf("Apply environment %q label to %d cluster(s)? [y/N]: ", p.Environment, len(p.Moves))
		if len(p.Moves) == 0 {
			q = fmt.Sprintf("Remove the leftover %s annotation from %d cluster(s)? [y/N]: ", v1alpha1.AnnotationMigration, len(p.Cleanups))
		}
		if err := pr.Confirm(q, declined); err != nil {
			return err
		}
	}
	if relabels == 0 {
		return nil
	}
	// Asked even with --yes, as butler-cli does: only the word itself passes.
	return pr.TypeWord("Relabel is destructive and rewrites existing environment assignments. Type RELABEL to proceed: ", "RELABEL", declined)
}
