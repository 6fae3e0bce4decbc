package manifest

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

const userHeader = "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: dan\nspec:\n  email: dan@example.com\n"

// An omitempty field written as "" or 0 decodes as if it were absent; the API server
// validates the document as written and refuses what the schema refuses, on the field's
// own line, worded as the walks word the same rule on any other value.
func TestValidateExplicitEmpty(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"enum on empty string", userHeader + "  authType: \"\"\n",
			[]string{`f.yaml:7: User "dan" (document 1): spec.authType: Unsupported value: "": supported values: "sso", "internal"`}},
		{"enum on empty string, single quotes", userHeader + "  authType: ''\n",
			[]string{`f.yaml:7: User "dan" (document 1): spec.authType: Unsupported value: "": supported values: "sso", "internal"`}},
		{"enum on empty string in a list item", teamHeader + "spec:\n  access:\n    users:\n    - name: a@example.com\n      role: \"\"\n",
			[]string{`f.yaml:9: Team "payments" (document 1): spec.access.users[0].role: Unsupported value: "": supported values: "admin", "operator", "viewer"`}},
		{"enum on empty string in a zero struct", clusterHeader + "spec:\n  kubernetesVersion: v1.31.0\n  workers:\n    replicas: 1\n    machineTemplate:\n      os: {type: \"\"}\n",
			[]string{`f.yaml:11: TenantCluster "payments/c" (document 1): spec.workers.machineTemplate.os.type: Unsupported value: "": supported values: "rocky", "flatcar", "talos", "kairos", "bottlerocket"`}},
		{"minimum on 0", clusterHeader + "spec:\n  kubernetesVersion: v1.31.0\n  workers:\n    replicas: 1\n    machineTemplate:\n      cpu: 0\n",
			[]string{`f.yaml:11: TenantCluster "payments/c" (document 1): spec.workers.machineTemplate.cpu: Invalid value: 0: should be greater than or equal to 1`}},
		{"required in an object written as {}", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: dan\nspec: {}\n",
			[]string{`f.yaml:5: User "dan" (document 1): spec.email: Required value`}},
		{"explicit null accepted", userHeader + "  authType:\n", nil},
		{"explicit ~ accepted", userHeader + "  authType: ~\n", nil},
		{"absent accepted", userHeader, nil},
		{"a value the schema allows", userHeader + "  authType: sso\n", nil},
		{"empty where the schema allows it", "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: bob\nspec:\n  email: bob@example.com\n  platformRole: \"\"\n", nil},
		{"required empty reported once", clusterHeader + "spec:\n  kubernetesVersion: \"\"\n  workers: {replicas: 1}\n",
			[]string{`f.yaml:7: TenantCluster "payments/c" (document 1): spec.kubernetesVersion: Required value`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Decode("f.yaml", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			err = Validate(objs[0])
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if got := err.Error(); got != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(tc.want, "\n"))
			}
			// The walk over the JSON value finds the same.
			var json []string
			for _, e := range validateObjectBy(objs[0], false) {
				json = append(json, e.Error())
			}
			if got := strings.Join(json, "\n"); got != strings.Join(tc.want, "\n") {
				t.Errorf("JSON walk: got:\n%s\nwant:\n%s", got, strings.Join(tc.want, "\n"))
			}
		})
	}
}

// No shipped CRD puts minLength or a pattern on an optional omitempty string (on the
// required ones "" is a missing value already): the rules are checked on a schema of the
// test's own, the way the walks check them.
func TestExplicitEmptyStringRules(t *testing.T) {
	objs, err := Decode("f.yaml", []byte(userHeader+"  authType: \"\"\n  avatar: \"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	one := int64(1)
	s := &jsonSchema{Properties: map[string]*jsonSchema{"spec": {Type: "object", Properties: map[string]*jsonSchema{
		"authType": {Type: "string", MinLength: &one},
		"avatar":   {Type: "string", Pattern: "^https://"},
	}}}}
	s.compile()
	got := explicitFindings(&objs[0], s, nil)
	want := field.ErrorList{
		field.Invalid(field.NewPath("spec", "authType"), "", "should be at least 1 chars long"),
		field.Invalid(field.NewPath("spec", "avatar"), "", "should match '^https://'"),
	}
	if got.ToAggregate().Error() != want.ToAggregate().Error() {
		t.Errorf("got %v, want %v", got, want)
	}
	// A field the walks report on already is not reported again.
	if got := explicitFindings(&objs[0], s, want[:1]); len(got) != 1 || got[0].Field != "spec.avatar" {
		t.Errorf("with authType reported already: got %v", got)
	}
}

// Nothing is recorded for the common case, and an object changed in memory since it was
// read is judged as it is now.
func TestExplicitEmptyRecord(t *testing.T) {
	objs, err := Decode("f.yaml", []byte(userHeader+"  authType: sso\n"))
	if err != nil {
		t.Fatal(err)
	}
	if objs[0].explicit != nil {
		t.Errorf("recorded %v for a document without explicit empty values", objs[0].explicit)
	}
	objs, err = Decode("f.yaml", []byte(userHeader+"  authType: \"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if objs[0].explicit == nil || len(objs[0].explicit.vals) != 1 {
		t.Fatalf("recorded %v", objs[0].explicit)
	}
	objs[0].Obj.(*v1alpha1.User).Spec.AuthType = "sso"
	if err := Validate(objs[0]); err != nil {
		t.Errorf("after the field was set: %v", err)
	}
}

// An object written as {} has its defaults filled before it is validated, as the server
// fills them: a required property with a default is not missing.
func TestExplicitEmptyObjectDefaults(t *testing.T) {
	objs, err := Decode("f.yaml", []byte("apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: User\nmetadata:\n  name: dan\nspec: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	spec := func(def any) *jsonSchema {
		return &jsonSchema{Properties: map[string]*jsonSchema{"spec": {Type: "object", Required: []string{"email"},
			Properties: map[string]*jsonSchema{"email": {Type: "string", Default: def}}}}}
	}
	if got := explicitFindings(&objs[0], spec(nil), nil); len(got) != 1 || got[0].Type != field.ErrorTypeRequired || got[0].Field != "spec.email" {
		t.Errorf("without a default: got %v", got)
	}
	if got := explicitFindings(&objs[0], spec("a@example.com"), nil); len(got) != 0 {
		t.Errorf("with a default: got %v", got)
	}
}
