// Package names is the one rule for the team and environment names a command is given:
// matched as the server matches them, and, when nothing matches, one error that says which
// names exist, which one was probably meant and what to run next.
//
// The server looks a Team up by its object name and a cluster's environment by the exact
// value of its environment label (docs/rules.md §5.3), so both match exactly here: "Dev" is
// not "dev", and a wrong case is never corrected quietly, only suggested.
package names

import (
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Kinds of name.
const (
	KindTeam        = "team"
	KindEnvironment = "environment"
)

// NotFoundError is a team or environment name that names nothing. It unwraps to an
// apimachinery NotFound, so it exits 3 like every other missing object.
type NotFoundError struct {
	Kind    string   // KindTeam or KindEnvironment
	Name    string   // as given
	Team    string   // an environment's team
	Known   []string // the names that exist, nil when they could not be read
	Listed  bool     // Known was read (an empty Known then means there are none)
	Suggest string   // the name probably meant, or ""
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	switch e.Kind {
	case KindEnvironment:
		fmt.Fprintf(&b, "environment %q not found on team %q", e.Name, e.Team)
		if e.Listed && len(e.Known) == 0 {
			b.WriteString(": the team defines no environments")
		}
	default:
		fmt.Fprintf(&b, "team %q not found", e.Name)
		if e.Listed && len(e.Known) == 0 {
			b.WriteString(": there are no teams")
		}
	}
	if len(e.Known) > 0 {
		fmt.Fprintf(&b, " (%ss: %s)", e.Kind, strings.Join(e.Known, ", "))
	}
	if e.Suggest != "" {
		fmt.Fprintf(&b, "; did you mean %q?", e.Suggest)
	}
	return b.String()
}

// Unwrap is the apimachinery NotFound the error stands for.
func (e *NotFoundError) Unwrap() error {
	resource := "teams"
	if e.Kind == KindEnvironment {
		resource = "environments"
	}
	err := apierrors.NewNotFound(v1alpha1.Resource(resource), e.Name)
	err.ErrStatus.Message = e.Error()
	return err
}

// Next is the command that shows the names that exist, for people on a terminal; bin is
// the binary's name.
func (e *NotFoundError) Next(bin string) string {
	if e.Kind == KindEnvironment {
		return fmt.Sprintf("Next: %s env list --team %s", bin, e.Team)
	}
	return fmt.Sprintf("Next: %s team list", bin)
}

// Team checks name against the teams that exist (known, listed is whether they could be
// read): nil when one matches, else a *NotFoundError.
func Team(name string, known []string, listed bool) error {
	if listed && contains(known, name) {
		return nil
	}
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	return &NotFoundError{Kind: KindTeam, Name: name, Known: sorted, Listed: listed, Suggest: Closest(name, sorted)}
}

// Environment finds the environment of team t named exactly name, as the server matches a
// cluster's label; a *NotFoundError when there is none.
func Environment(t *v1alpha1.Team, name string) (*v1alpha1.EnvironmentSpec, error) {
	if e := policy.EnvironmentOf(t, name); e != nil {
		return e, nil
	}
	return nil, EnvironmentNotFound(t, name)
}

// EnvironmentNotFound is the *NotFoundError for an environment name of team t that names
// none of its environments, listed in the team's order. Edits of the team's list of
// environments (env update, env delete) find their entry as butler-server's handlers do,
// case-insensitively, and use it when even that finds none.
func EnvironmentNotFound(t *v1alpha1.Team, name string) error {
	known := make([]string, 0, len(t.Spec.Environments))
	for _, e := range t.Spec.Environments {
		known = append(known, e.Name)
	}
	return &NotFoundError{Kind: KindEnvironment, Name: name, Team: t.Name, Known: known, Listed: true, Suggest: Closest(name, known)}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Closest is the name of known a user probably meant by name: one differing only in case
// first, else one that starts with it or it starts with (three letters at least), else
// the nearest at most two edits away (a swap of neighbours is one) and closer than half its
// length; "" when none is.
func Closest(name string, known []string) string {
	for _, k := range known {
		if policy.SameEnvironment(k, name) {
			return k
		}
	}
	lower := strings.ToLower(name)
	if len(name) >= 3 {
		for _, k := range known {
			lk := strings.ToLower(k)
			if strings.HasPrefix(lk, lower) || strings.HasPrefix(lower, lk) {
				return k
			}
		}
	}
	best, bestD := "", 3
	for _, k := range known {
		d := distance(lower, strings.ToLower(k))
		if d < bestD && 2*d < len(k) {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the edit distance of a and b in bytes, a swap of two neighbours counting as
// one edit (optimal string alignment): "tema" is one edit from "team".
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
