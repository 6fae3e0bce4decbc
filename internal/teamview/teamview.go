// Package teamview shows Teams the same way in team list, team get and the commands that
// write them: the Team with its apiVersion and kind for the structured formats.
package teamview

import "github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"

// Object is a copy of t with its apiVersion and kind set, as printed: a Team read back from
// a store does not always carry them, and the printers need them.
func Object(t *v1alpha1.Team) *v1alpha1.Team {
	c := t.DeepCopy()
	c.APIVersion, c.Kind = v1alpha1.APIVersion, v1alpha1.KindTeam
	return c
}
