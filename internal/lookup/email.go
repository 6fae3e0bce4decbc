package lookup

import (
	"context"
	"sort"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// LikelyEmails are the e-mails a name that is no e-mail most likely stands for: those of the
// Users whose metadata.name is name, and every known e-mail (Users', teams' access lists)
// whose local part is name, compared without case. Identities are e-mails compared whole,
// so `--as carol` matches nothing that carol@example.com does. A name with "@" or ":" (a
// service account) has none. What cannot be read yields none: this only words a hint.
func LikelyEmails(ctx context.Context, s store.Reader, name string) []string {
	if name == "" || strings.ContainsAny(name, "@:") {
		return nil
	}
	found := map[string]bool{}
	match := func(email string) {
		local, _, ok := strings.Cut(email, "@")
		if ok && strings.EqualFold(local, name) {
			found[email] = true
		}
	}
	if users, err := s.ListUsers(ctx); err == nil {
		for _, u := range users {
			if strings.EqualFold(u.Name, name) && u.Spec.Email != "" {
				found[u.Spec.Email] = true
			}
			match(u.Spec.Email)
		}
	}
	if teams, err := s.ListTeams(ctx); err == nil {
		for i := range teams {
			eachAccessUser(&teams[i], match)
		}
	}
	out := make([]string, 0, len(found))
	for e := range found {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}

// eachAccessUser calls f with every user a team's access lists name, its environments'
// included.
func eachAccessUser(t *v1alpha1.Team, f func(string)) {
	for _, u := range t.Spec.Access.Users {
		f(u.Name)
	}
	for _, e := range t.Spec.Environments {
		if e.Access != nil {
			for _, u := range e.Access.Users {
				f(u.Name)
			}
		}
	}
}
