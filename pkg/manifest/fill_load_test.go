package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// An object with a field that does not decode is still validated, so that one Load reports
// every problem of it; a document in doubt as a whole (an alias that does not resolve, a
// bound crossed) is not, and Decode alone checks types only, as before.
func TestLoadReportsEveryProblemOfAnObject(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	team := write("team.yaml", teamHeader+`spec:
  displayName: 5
  access:
    users:
      - role: admin
  environments:
    - description: no name
`)
	_, err := Load([]string{team}, nil)
	got := fieldsOf(err)
	want := []string{"spec.displayName", "spec.access.users[0].name", "spec.environments[0].name"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Load reported %q, want %q (in file order)", got, want)
	}
	data, _ := os.ReadFile(team)
	if _, err := Decode(team, data); !reflect.DeepEqual(fieldsOf(err), want[:1]) {
		t.Errorf("Decode reported %q, want the type error only", fieldsOf(err))
	}

	// A wrong field below a required one: the field is there, so it is not "Required".
	ref := write("ref.yaml", teamHeader+"spec:\n  providerConfigRef: {name: 5}\n")
	_, err = Load([]string{ref}, nil)
	if got := fieldsOf(err); !reflect.DeepEqual(got, []string{"spec.providerConfigRef.name"}) {
		t.Errorf("reported %q, want the type error of spec.providerConfigRef.name alone", got)
	}

	doubt := write("doubt.yaml", teamHeader+"spec:\n  displayName: 5\n  access: {users: [{role: admin}], <<: 5}\n")
	_, err = Load([]string{doubt}, nil)
	if err == nil {
		t.Fatal("a document with a type error and a bad merge key loaded")
	}
	for _, f := range fieldsOf(err) {
		if strings.HasSuffix(f, ".name") {
			t.Errorf("a document in doubt was validated: %v", err)
		}
	}
}

func fieldsOf(err error) []string {
	var out []string
	for _, e := range unjoin(err) {
		if de, ok := e.(*DecodeError); ok {
			out = append(out, de.Field)
		}
	}
	return out
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unjoin(e)...)
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []error{err}
}
