package checkreport

import (
	"fmt"
	"io"

	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
)

// markdown is the summary for a pull request (GitHub's job summary): the verdict, per team
// and environment the capped figures before and after against each cap, the findings, and
// what was not judged.
func markdown(w io.Writer, r *check.Report) error {
	verdict := "✅ nothing would be refused"
	if r.Errors > 0 {
		verdict = "❌ would be refused"
	}
	fmt.Fprintf(w, "## Butler check: %s\n\n%s\n", verdict, summary(r))
	if len(r.Recognised) > 0 {
		fmt.Fprintf(w, "\nRecognised, not judged: %s\n", md(gitops.Summary(r.Recognised)))
	}
	if len(r.Usage) > 0 {
		fmt.Fprint(w, "\n### Usage against the caps\n\n")
		if r.Mode == "change" {
			fmt.Fprint(w, "After is what Butler holds once the change is applied: a refused request changes nothing.\n\n")
			fmt.Fprintln(w, "| team | environment | cap | before | after | limit |")
			fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: | ---: |")
		} else {
			fmt.Fprintln(w, "| team | environment | cap | usage | limit |")
			fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: |")
		}
		for _, u := range r.Usage {
			env := u.Environment
			if env == "" {
				env = "(team)"
			}
			after := md(u.After)
			if u.Over {
				after = "**" + after + "** ⚠️"
			}
			limit := md(u.Limit)
			if u.Requested != "" {
				limit += " → " + md(u.Requested) + " (refused)"
			}
			if r.Mode == "change" {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", md(u.Team), md(env), md(u.Cap), md(u.Before), after, limit)
			} else {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", md(u.Team), md(env), md(u.Cap), after, limit)
			}
		}
	}
	var judged, notJudged []check.Finding
	for _, fd := range r.Findings {
		if fd.Rule == check.RuleNotJudged {
			notJudged = append(notJudged, fd)
		} else {
			judged = append(judged, fd)
		}
	}
	if len(judged) > 0 {
		fmt.Fprint(w, "\n### Findings\n\n")
		fmt.Fprintln(w, "| | where | object | finding | rule |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
		for _, fd := range judged {
			icon := "⚠️"
			if fd.Severity == check.SeverityError {
				icon = "❌"
			}
			msg := fd.Message + figures(fd)
			if fd.Note != "" {
				msg += " (" + fd.Note + ")"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | `%s` |\n", icon, md(where(fd)), md(object(fd)), md(msg), fd.Rule)
		}
	}
	if len(notJudged) > 0 {
		fmt.Fprint(w, "\n### Not judged\n\n")
		for _, fd := range notJudged {
			fmt.Fprintf(w, "- %s, %s: %s\n", md(where(fd)), md(object(fd)), md(fd.Message))
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprint(w, "\n### Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "- %s\n", md(n))
		}
	}
	return nil
}

func where(fd check.Finding) string {
	if fd.File == "" {
		return "the change"
	}
	return fmt.Sprintf("%s:%d", displayFile(fd.File), fd.Line)
}
