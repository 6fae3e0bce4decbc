package webhook

import (
	"fmt"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// This file is the switch of the rules by which this webhook goes beyond Butler
// (policy.BeyondButlerRules, docs/rules.md §15): each is on unless switched off, and with
// all of them off the webhook answers exactly as Butler does.

// rulesOff holds the switched-off rules; it is set before serving and only read after.
type rulesOff map[string]bool

// SetRulesOff switches the named rules off ("all" for every one); an id that is not one of
// them is an error naming those that are. Call it before serving.
func (h *Handler) SetRulesOff(ids []string) error {
	off := rulesOff{}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		switch {
		case id == "all":
			for _, r := range policy.BeyondButlerRules() {
				off[r] = true
			}
		case policy.BeyondButler(id):
			off[id] = true
		default:
			return fmt.Errorf("%q is not a rule of this webhook beyond Butler's; those are: %s", id, strings.Join(policy.BeyondButlerRules(), ", "))
		}
	}
	h.off = off
	return nil
}

// on reports whether a rule beyond Butler's is on.
func (h *Handler) on(rule string) bool { return !h.off[rule] }
