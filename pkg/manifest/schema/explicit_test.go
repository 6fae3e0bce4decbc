package schema

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// No shipped CRD puts minLength or a pattern on an optional omitempty string (on the
// required ones "" is a missing value already): the rules are checked on a schema of the
// test's own, the way the walks check them.
func TestExplicitEmptyStringRules(t *testing.T) {
	objs, err := decode("f.yaml", []byte(userHeader+"  authType: \"\"\n  avatar: \"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	one := int64(1)
	s := &jsonSchema{Properties: map[string]*jsonSchema{"spec": {Type: "object", Properties: map[string]*jsonSchema{
		"authType": {Type: "string", MinLength: &one},
		"avatar":   {Type: "string", Pattern: "^https://"},
	}}}}
	s.compile()
	got := explicitFindings(objs[0], s, nil)
	want := field.ErrorList{
		field.Invalid(field.NewPath("spec", "authType"), "", "should be at least 1 chars long"),
		field.Invalid(field.NewPath("spec", "avatar"), "", "should match '^https://'"),
	}
	if got.ToAggregate().Error() != want.ToAggregate().Error() {
		t.Errorf("got %v, want %v", got, want)
	}
	// A field the walks report on already is not reported again.
	if got := explicitFindings(objs[0], s, want[:1]); len(got) != 1 || got[0].Field != "spec.avatar" {
		t.Errorf("with authType reported already: got %v", got)
	}
}

// Nothing is recorded for the common case, and an object changed in memory since it was
// read is judged as it is now.
func TestExplicitEmptyRecord(t *testing.T) {
	objs, err := decode("f.yaml", []byte(userHeader+"  authType: sso\n"))
	if err != nil {
		t.Fatal(err)
	}
	if objs[0].Explicit != nil {
		t.Errorf("recorded %v for a document without explicit empty values", objs[0].Explicit)
	}
	objs, err = decode("f.yaml", []byte(userHeader+"  authType: \"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if objs[0].Explicit == nil || len(objs[0].Explicit.vals) != 1 {
		t.Fatalf("recorded %v", objs[0].Explicit)
	}
	objs[0].Obj.(*v1alpha1.User).Spec.AuthType = "sso"
	if err := validate(objs[0]); err != nil {
		t.Errorf("after the field was set: %v", err)
	}
}

// An object written as {} has its defaults filled before it is validated, as the server
// fills them: a required property with a default is not missing.
func TestExplicitEmptyObjectDefaults(t *testing.T) {
	objs, err := decode("f.yaml", []byte("apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: dan\nspec: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	spec := func(def any) *jsonSchema {
		return &jsonSchema{Properties: map[string]*jsonSchema{"spec": {Type: "object", Required: []string{"email"},
			Properties: map[string]*jsonSchema{"email": {Type: "string", Default: def}}}}}
	}
	if got := explicitFindings(objs[0], spec(nil), nil); len(got) != 1 || got[0].Type != field.ErrorTypeRequired || got[0].Field != "spec.email" {
		t.Errorf("without a default: got %v", got)
	}
	if got := explicitFindings(objs[0], spec("a@example.com"), nil); len(got) != 0 {
		t.Errorf("with a default: got %v", got)
	}
}
