package check

import (
	"sort"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Part is the report of one target of a repository.
type Part struct {
	Target string
	Report *Report
}

// Combine joins the reports of targets judged apart into one: each finding and object
// names its target.
func Combine(parts []Part) *Report {
	if len(parts) == 1 && parts[0].Target == "" {
		return parts[0].Report
	}
	r := &Report{Mode: "state"}
	for _, p := range parts {
		r.Mode = p.Report.Mode
		r.Unreadable = r.Unreadable || p.Report.Unreadable
		if p.Target != "" {
			r.Targets = append(r.Targets, p.Target)
		}
		for _, f := range p.Report.Findings {
			f.Target = p.Target
			r.Findings = append(r.Findings, f)
		}
		for _, o := range p.Report.Objects {
			o.Target = p.Target
			r.Objects = append(r.Objects, o)
		}
		for _, n := range p.Report.Notes {
			if p.Target != "" {
				n = p.Target + ": " + n
			}
			r.Notes = append(r.Notes, n)
		}
		for _, u := range p.Report.Usage {
			u.Target = p.Target
			r.Usage = append(r.Usage, u)
		}
	}
	sort.Strings(r.Targets)
	r.finish()
	return r
}

// Add adds findings to a finished report and counts them again.
func (r *Report) Add(fs ...Finding) {
	r.Findings = append(r.Findings, fs...)
	r.finish()
}

// atPatch moves a Team webhook denial (whose message names its field, not the denial) to
// the patch that set that field, when a renderer says a patch did.
func atPatch(f Finding, obj *manifest.Object, d *policy.Denial) Finding {
	field, _, _ := strings.Cut(d.Message, " ")
	field = strings.ReplaceAll(field, "[]", "")
	if !strings.HasPrefix(field, "spec.") {
		return f
	}
	if file, line := obj.Position(field); file != obj.Source.File {
		f.File, f.Line = file, line
	}
	return f
}
