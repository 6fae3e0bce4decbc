package manifest

import (
	"strings"
	"testing"
)

const ccpHeader = "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: ClusterCreationPolicy\nmetadata:\n  name: images\n"

func TestClusterCreationPolicyDecodes(t *testing.T) {
	in := ccpHeader + `spec:
  scope:
    teamAndEnvironment: {teamRef: {name: payments}, environmentName: prod}
  targetProviders: [nutanix]
  options:
    image: {mode: allowList, values: [img-a, img-b], default: img-a}
    network: {mode: recommended, values: [net-1], recommendedReason: fastest}
`
	objs, err := Decode("p.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	set := &Set{Objects: objs}
	if err := Validate(objs[0]); err != nil {
		t.Fatal(err)
	}
	p := set.ClusterCreationPolicy("images")
	if p == nil || len(set.ClusterCreationPolicies()) != 1 {
		t.Fatalf("policy not found: %+v", objs)
	}
	if r := p.Spec.Options["image"]; r.Mode != "allowList" || len(r.Values) != 2 || r.Default != "img-a" {
		t.Errorf("image rule decoded wrongly: %+v", r)
	}
	if team, env := p.Spec.Scope.Target(); team != "payments" || env != "prod" || p.Spec.Scope.Tier().String() != "teamAndEnvironment" {
		t.Errorf("scope: %s %s %s", team, env, p.Spec.Scope.Tier())
	}
}

// TestClusterCreationPolicySchema: what the CRD refuses, including its CEL rule, is refused
// with the file, line, object and field.
func TestClusterCreationPolicySchema(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"no scope", "spec:\n  scope: {}\n",
			`p.yaml:6: ClusterCreationPolicy "images" (document 1): spec.scope: Invalid value: "object": exactly one of platformWide, team, or teamAndEnvironment must be set`},
		{"two scopes", "spec:\n  scope:\n    platformWide: {}\n    team: {teamRef: {name: payments}}\n",
			`p.yaml:6: ClusterCreationPolicy "images" (document 1): spec.scope: Invalid value: "object": exactly one of platformWide, team, or teamAndEnvironment must be set`},
		{"mode", "spec:\n  scope: {platformWide: {}}\n  options:\n    image: {mode: pinned, values: [a]}\n",
			`p.yaml:8: ClusterCreationPolicy "images" (document 1): spec.options[image].mode: Unsupported value: "pinned": supported values: "pin", "allowList", "default", "recommended"`},
		{"provider", "spec:\n  scope: {platformWide: {}}\n  targetProviders: [vsphere]\n",
			`p.yaml:7: ClusterCreationPolicy "images" (document 1): spec.targetProviders[0]: Unsupported value: "vsphere": supported values: "harvester", "nutanix", "proxmox", "azure", "aws", "gcp", "local"`},
		{"reason too long", "spec:\n  scope: {platformWide: {}}\n  options:\n    image: {mode: recommended, values: [a], recommendedReason: " + strings.Repeat("x", 121) + "}\n",
			`p.yaml:8: ClusterCreationPolicy "images" (document 1): spec.options[image].recommendedReason: Too long: may not be more than 120 bytes`},
		{"unknown field", "spec:\n  scope: {platformWide: {}}\n  priority: 3\n",
			`p.yaml:7: ClusterCreationPolicy "images" (document 1): spec.priority: unknown field`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Decode("p.yaml", []byte(ccpHeader+tc.spec))
			if err == nil {
				for _, o := range objs {
					if verr := Validate(o); verr != nil {
						err = verr
					}
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}
