// Package check judges a tree of Butler manifests, and the change between two trees, as the
// server would (docs/ci-on-manifests.md): the state of the tree (every object against its
// own admission rules, every aggregate cap, every reference) and, given a base, every
// added, changed and deleted object as the request of its author. It reuses pkg/policy's
// rules and messages and imports nothing from the command layer.
package check

import (
	"errors"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Severity of a finding: error for what the server would refuse (or the gate forbids),
// warning for what it would accept but is likely wrong.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Rule ids of findings that are not pkg/policy's.
const (
	RuleDecode              = "decode"
	RuleMigrationAnnotation = "migration-annotation"
	RuleTeamRefUnset        = "team-ref-unset"
	RuleProviderInUse       = "provider-in-use"
	// A reference the tree does not resolve: not judged (a warning), or, with --complete,
	// missing (an error).
	RuleNotJudged        = "not-judged"
	RuleMissingReference = "missing-reference"
	// The governance rules, which judge the author (docs/rules.md §13).
	RuleRole                = "author-role"
	RulePlatformAdminOnly   = "author-platform-admin"
	RuleAuthorUnknown       = "author-unknown"
	RuleAuthorTeam          = "author-team"
	RuleAuthorTeamLimits    = "author-team-limits"
	RuleAuthorTeamEnvLimits = "author-team-env-limits"
	RuleAuthorTeamDelete    = "author-team-delete"
	RuleAuthorMigrate       = "author-migrate"
	RuleAuthorMigrationRoom = "author-migration-room"
	RuleAuthorAddon         = "author-addon"
	RuleAuthorControlPlane  = "author-control-plane"
	RuleAuthorUncovered     = "author-uncovered"
)

// Finding is one problem with one object. The first ten fields are always present in
// JSON; Limit, Total and Over say, for an aggregate, the cap, the figure it is compared
// with and by how much it is exceeded.
type Finding struct {
	File      string   `json:"file"`
	Line      int      `json:"line"`
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Field     string   `json:"field"`
	Type      string   `json:"type"`
	Message   string   `json:"message"`
	Rule      string   `json:"rule"`
	Severity  Severity `json:"severity"`
	Limit     string   `json:"limit,omitempty"`
	Total     string   `json:"total,omitempty"`
	Over      string   `json:"over,omitempty"`
	// Note qualifies the verdict: under which rules (before or after this change) it was
	// reached.
	Note string `json:"note,omitempty"`
	// Target is the management cluster the object is reconciled into, for a repository
	// whose entry points reconcile into several (Flux, Argo CD).
	Target string `json:"target,omitempty"`
}

// Object is one object the check judged, for reports that list every object (JUnit).
type Object struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Target    string `json:"target,omitempty"`
}

// Report is the outcome of a check.
type Report struct {
	// Mode is "state" (the tree alone) or "change" (against a base).
	Mode     string    `json:"mode"`
	Objects  []Object  `json:"-"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Findings []Finding `json:"findings"`
	// Notes are about the change as a whole (several creates under one cap).
	Notes []string `json:"notes,omitempty"`
	// Usage is every team's and environment's capped figures, for the summary reports.
	Usage []Usage `json:"-"`
	// Unreadable is set when the manifests did not decode: the findings are the decode
	// errors and nothing else was judged.
	Unreadable bool `json:"unreadable"`
	// Recognised counts, by kind, the documents recognised and not judged; NotRendered
	// what the controllers render and the check does not (HelmReleases).
	Recognised  map[string]int `json:"recognised,omitempty"`
	NotRendered map[string]int `json:"notRendered,omitempty"`
	// Charts are the directories of Helm charts in the tree, not rendered.
	Charts []string `json:"charts,omitempty"`
	// Targets are the management clusters judged apart, when there are several.
	Targets []string `json:"targets,omitempty"`
}

// LiveFile is the file of objects read from the platform rather than the manifests
// (check --context): they are not the change's, so their findings are warnings.
const LiveFile = "(live)"

// finish sorts and de-duplicates the findings and counts them.
func (r *Report) finish() {
	for i := range r.Findings {
		if r.Findings[i].File == LiveFile {
			r.Findings[i].Severity = SeverityWarning
		}
	}
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	out := r.Findings[:0]
	seen := map[Finding]bool{}
	for _, f := range r.Findings {
		if seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	r.Findings = out
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	r.Errors, r.Warnings = 0, 0
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			r.Errors++
		} else {
			r.Warnings++
		}
	}
}

// DecodeFindings turns a load error (errors.Join of *manifest.DecodeError and file
// errors) into findings; ok is false when err holds something else, such as a file that
// cannot be read.
func DecodeFindings(err error) (fs []Finding, ok bool) {
	var errs []error
	if j, isJoin := err.(interface{ Unwrap() []error }); isJoin {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var de *manifest.DecodeError
		if !errors.As(e, &de) {
			return nil, false
		}
		msg := de.Msg
		if de.Field != "" {
			msg = de.Field + ": " + msg // as the policy's field errors read
		}
		fs = append(fs, Finding{File: de.File, Line: de.Line, Kind: de.Kind, Namespace: de.Namespace, Name: de.Name,
			Field: de.Field, Type: "Invalid", Message: msg, Rule: RuleDecode, Severity: SeverityError})
	}
	return fs, true
}

// Unreadable is the report of manifests that did not decode.
func Unreadable(findings []Finding) *Report {
	r := &Report{Mode: "state", Findings: findings, Unreadable: true}
	r.finish()
	return r
}

// over is after − limit when both are quantities and after is the larger, else "".
func over(limit, after string) string {
	l, err1 := resource.ParseQuantity(limit)
	a, err2 := resource.ParseQuantity(after)
	if err1 != nil || err2 != nil || a.Cmp(l) <= 0 {
		return ""
	}
	a.Sub(l)
	return a.String()
}

// decisionFindings turns an admission decision on obj into findings: each violation an
// error (with the cap's figures for an aggregate), each warning of an allowed check a
// warning.
func decisionFindings(obj *manifest.Object, d policy.Decision) []Finding {
	var fs []Finding
	for _, v := range d.Violations {
		f := findingAt(obj, v.Error.Field, string(v.Error.Type), v.Error.Error(), v.Rule, SeverityError)
		for _, c := range d.Checks {
			if c.Rule == v.Rule && !c.Allowed && c.Limit != "" && c.Usage != "" {
				// An aggregate: the request's figure against the cap.
				f.Limit, f.Total, f.Over = c.Limit, c.After, over(c.Limit, c.After)
			}
		}
		fs = append(fs, f)
	}
	for _, c := range d.Checks {
		if c.Allowed && c.Warning != "" {
			fs = append(fs, findingAt(obj, c.Field, "", c.Warning, c.Rule, SeverityWarning))
		}
	}
	return fs
}

// findingAt is a finding on obj at a field path (line of the field when the file has it,
// or of the patch that set it).
func findingAt(obj *manifest.Object, field, typ, msg, rule string, sev Severity) Finding {
	file, line := obj.Position(field)
	return Finding{File: file, Line: line, Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name,
		Field: field, Type: typ, Message: msg, Rule: rule, Severity: sev, Note: obj.OriginNote(field)}
}
