package checkreport

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/butlerdotdev/butler-toolkit/pkg/check"
)

// TestSARIFAgainstSchema validates --format sarif against the SARIF 2.1.0 schema's
// constraints on what it writes (testdata/sarif-2.1.0-subset.json), formats asserted, for
// a report with an error, a warning, a finding on the change as a whole and a file name
// that needs escaping.
func TestSARIFAgainstSchema(t *testing.T) {
	raw, err := os.ReadFile("testdata/sarif-2.1.0-subset.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	r := &check.Report{Mode: "change", Errors: 2, Warnings: 1, Findings: []check.Finding{
		{File: "clusters/a b#1.yaml", Line: 7, Kind: "TenantCluster", Namespace: "p", Name: "a", Message: "spec: Forbidden: x", Rule: "env-max-clusters", Severity: check.SeverityError, Note: "under the rules before this change"},
		{File: "team.yaml", Line: 3, Kind: "Team", Name: "p", Message: "::set-output name=x::y\x1b[2J", Rule: "author-team", Severity: check.SeverityWarning},
		{Message: "the author is unknown", Rule: check.RuleAuthorUnknown, Severity: check.SeverityError},
	}}
	var out bytes.Buffer
	if err := sarif(&out, r); err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("the SARIF log does not validate: %v\n%s", err, out.String())
	}
	var log sarifLog
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results
	if len(res) != 3 || res[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != "clusters/a%20b%231.yaml" || len(res[2].Locations) != 0 {
		t.Errorf("results: %+v", res)
	}
	if strings.Contains(out.String(), "\\u001b") {
		t.Error("an escape character from a manifest reached the SARIF log")
	}
	for _, rr := range res {
		if log.Runs[0].Tool.Driver.Rules[rr.RuleIndex].ID != rr.RuleID {
			t.Errorf("ruleIndex %d does not name %s", rr.RuleIndex, rr.RuleID)
		}
	}

	// The schema is not a test that cannot fail: a wrong level or a line 0 is refused.
	for _, bad := range []string{`"level": "error"`, `"startLine": 7`} {
		broken := strings.Replace(out.String(), bad, map[string]string{`"level": "error"`: `"level": "fatal"`, `"startLine": 7`: `"startLine": 0`}[bad], 1)
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(broken))
		if err != nil {
			t.Fatal(err)
		}
		if schema.Validate(inst) == nil {
			t.Errorf("a log with %s replaced validated", bad)
		}
	}
}
