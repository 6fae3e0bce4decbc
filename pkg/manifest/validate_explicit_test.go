package manifest

import (
	"strings"
	"testing"
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
