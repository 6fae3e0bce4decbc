package gitops

import "testing"

// The forms Flux substitutes, and the one error: a variable nothing sets, without default.
func TestSubstitution(t *testing.T) {
	s := &substitution{vars: map[string]string{"env": "prod", "empty": ""}}
	for _, c := range []struct{ in, want, unset string }{
		{"a: ${env}", "a: prod", ""},
		{"a: ${missing:=dev}", "a: dev", ""},
		{"a: ${missing:-dev}", "a: dev", ""},
		{"a: ${empty:=dev}", "a: dev", ""}, // := and :- also replace an empty value
		{"a: ${empty=dev}", "a: ", ""},     // = and - only an unset one
		{"a: $${env}", "a: ${env}", ""},    // escaped
		{"a: $env", "a: $env", ""},         // only the braced form is a variable
		{"a: ${env}-${missing}", "", "missing"},
	} {
		got, err := s.apply(c.in)
		if c.unset != "" {
			if unsetVar(err) != c.unset {
				t.Errorf("%q: error %v, want variable %q unset", c.in, err, c.unset)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
