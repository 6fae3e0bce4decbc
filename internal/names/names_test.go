package names

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestClosest(t *testing.T) {
	known := []string{"dev", "prod", "staging"}
	for name, want := range map[string]string{
		"Dev":     "dev",     // a wrong case first
		"PROD":    "prod",    //
		"stag":    "staging", // a prefix
		"prd":     "prod",    // one edit
		"porod":   "prod",    // one extra letter
		"dve":     "dev",     // a swap of neighbours is one edit
		"stagign": "staging", // two edits
		"qa":      "",        // nothing close
		"x":       "",        // one letter is close to nothing
		"dvx":     "",        // two edits of a three-letter name is a guess
	} {
		if got := Closest(name, known); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestEnvironmentMatchesExactly(t *testing.T) {
	team := &v1alpha1.Team{Spec: v1alpha1.TeamSpec{Environments: []v1alpha1.EnvironmentSpec{{Name: "dev"}, {Name: "prod"}}}}
	team.Name = "payments"
	if e, err := Environment(team, "prod"); err != nil || e.Name != "prod" {
		t.Fatalf("prod: %v, %v", e, err)
	}
	_, err := Environment(team, "Prod")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !apierrors.IsNotFound(err) {
		t.Fatalf("Prod: %v is not a NotFound", err)
	}
	if want := `environment "Prod" not found on team "payments" (environments: dev, prod); did you mean "prod"?`; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if got := nf.Next("butlerctl"); got != "Next: butlerctl env list --team payments" {
		t.Errorf("next %q", got)
	}
	team.Spec.Environments = nil
	if _, err := Environment(team, "dev"); err == nil || err.Error() != `environment "dev" not found on team "payments": the team defines no environments` {
		t.Errorf("no environments: %v", err)
	}
}

func TestTeam(t *testing.T) {
	if err := Team("payments", []string{"payments"}, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		known  []string
		listed bool
		want   string
	}{
		{[]string{"payments", "ledger"}, true, `team "Payments" not found (teams: ledger, payments); did you mean "payments"?`},
		{nil, true, `team "Payments" not found: there are no teams`},
		{nil, false, `team "Payments" not found`}, // the teams could not be listed
	} {
		err := Team("Payments", c.known, c.listed)
		if err == nil || err.Error() != c.want || !apierrors.IsNotFound(err) {
			t.Errorf("got %v, want %q (NotFound)", err, c.want)
		}
	}
}
