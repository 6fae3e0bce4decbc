// Package checkreport writes the report of a check (pkg/gate) in the formats of check's
// --format: text grouped by file, GitHub workflow annotations, JUnit XML, SARIF 2.1.0 and
// a Markdown pull request summary. It is the command line's: the formats carry the
// binary's version and wrap to the terminal; a Go user of pkg/gate has the report itself.
package checkreport

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/textwrap"
	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Formats of a report, as check's --format names them.
const (
	Text   = "text"
	GitHub = "github"
	JUnit  = "junit"
	// SARIF is SARIF 2.1.0, for code scanning; Markdown a summary for a pull request (a
	// CI job summary).
	SARIF    = "sarif"
	Markdown = "markdown"
)

// Write writes the report in format (Text when it is none of the others); width is the terminal's for the
// text format (0: not a terminal, a finding a line).
func Write(w io.Writer, format string, r *check.Report, width int) error {
	switch format {
	case GitHub:
		return github(w, r)
	case JUnit:
		return junit(w, r)
	case SARIF:
		return sarif(w, r)
	case Markdown:
		return markdown(w, r)
	}
	return textReport(w, r, width)
}

// textReport groups the findings by file, in line order, and ends with a summary. On a
// terminal (width > 0) each finding wraps under its own start, indented under the file's
// heading; piped, a finding is one line.
func textReport(w io.Writer, r *check.Report, width int) error {
	file := "\x00"
	for _, fd := range r.Findings {
		if fd.File != file {
			if file != "\x00" {
				fmt.Fprintln(w)
			}
			file = fd.File
			fmt.Fprintln(w, inert.Line(displayFile(fd.File)))
		}
		prefix := "  "
		var text string
		if fd.File == "" && fd.Kind == "" { // about the change as a whole
			text = fmt.Sprintf("%s: %s [%s]", fd.Severity, inert.Text(fd.Message), inert.Text(fd.Rule))
		} else {
			prefix = fmt.Sprintf("  %d: ", fd.Line)
			text = fmt.Sprintf("%s: %s: %s [%s]", fd.Severity, inert.Text(object(fd)), inert.Text(fd.Message), inert.Text(fd.Rule))
		}
		text += inert.Text(figures(fd))
		fmt.Fprintln(w, textwrap.Indent(text, prefix, strings.Repeat(" ", len(prefix)), width))
		if fd.Note != "" {
			fmt.Fprintln(w, textwrap.Indent(inert.Text(fd.Note), "     note: ", strings.Repeat(" ", 11), width))
		}
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, textwrap.Indent(inert.Text(n), "note: ", "      ", width))
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
	}
	_, err := fmt.Fprintln(w, summary(r))
	if err == nil {
		err = notJudged(w, r)
	}
	return err
}

// notJudged lists what the check recognised and did not judge, and what it did not
// render, by kind.
func notJudged(w io.Writer, r *check.Report) error {
	if len(r.Targets) > 0 {
		if _, err := fmt.Fprintf(w, "targets judged apart: %s\n", strings.Join(r.Targets, ", ")); err != nil {
			return err
		}
	}
	if len(r.Recognised) > 0 {
		if _, err := fmt.Fprintf(w, "recognised, not judged: %s\n", gitops.Summary(r.Recognised)); err != nil {
			return err
		}
	}
	if len(r.NotRendered) > 0 {
		if _, err := fmt.Fprintf(w, "not rendered (what their controllers render is not judged): %s\n", gitops.Summary(r.NotRendered)); err != nil {
			return err
		}
	}
	if len(r.Charts) > 0 {
		if _, err := fmt.Fprintf(w, "Helm charts no HelmRelease or Application installs, not rendered: %d (%s)\n", len(r.Charts), inert.Line(strings.Join(r.Charts, ", "))); err != nil {
			return err
		}
	}
	return nil
}

func summary(r *check.Report) string {
	if r.Unreadable {
		return fmt.Sprintf("%s: the manifests do not read; nothing else was checked", plural(r.Errors, "error"))
	}
	what := "state check"
	if r.Mode == "change" {
		what = "change check"
	}
	return fmt.Sprintf("%s, %s in %s (%s)", plural(r.Errors, "error"), plural(r.Warnings, "warning"), plural(len(r.Objects), "object"), what)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func displayFile(f string) string {
	switch f {
	case "-":
		return "<stdin>"
	case "":
		return "<the change>" // a finding on the change as a whole
	}
	return f
}

// object names a finding's object: Kind "namespace/name", or the document.
func object(fd check.Finding) string {
	if fd.Kind == "" {
		return "document"
	}
	name := fd.Name
	if fd.Namespace != "" {
		name = fd.Namespace + "/" + name
	}
	if name == "" {
		return fd.Kind
	}
	if fd.Target != "" {
		return fmt.Sprintf("%s %q in %s", fd.Kind, name, fd.Target)
	}
	return fmt.Sprintf("%s %q", fd.Kind, name)
}

// figures are a refusal's cap, the total the request makes and by how much it is over,
// as " (limit 6, total 7, over by 1)"; "" for a finding without them. Every format that
// words a finding carries them.
func figures(fd check.Finding) string {
	if fd.Limit == "" {
		return ""
	}
	f := fmt.Sprintf(" (limit %s, total %s", fd.Limit, fd.Total)
	if fd.Over != "" {
		f += ", over by " + fd.Over
	}
	return f + ")"
}

// github prints one workflow command per finding (::error / ::warning), which GitHub
// shows on the file's line in the pull request, then the summary.
func github(w io.Writer, r *check.Report) error {
	for _, fd := range r.Findings {
		msg := object(fd) + ": " + fd.Message + figures(fd)
		if fd.Note != "" {
			msg += " (" + fd.Note + ")"
		}
		if fd.File == "" {
			fmt.Fprintf(w, "::%s title=%s::%s\n", fd.Severity, ghProperty(inert.Text("butler check: "+fd.Rule)), ghData(inert.Text(fd.Message)))
			continue
		}
		fmt.Fprintf(w, "::%s file=%s,line=%d,title=%s::%s\n", fd.Severity, ghProperty(inert.Text(fd.File)), fd.Line,
			ghProperty(inert.Text("butler check: "+fd.Rule)), ghData(inert.Text(msg)))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "::notice title=butler check::%s\n", ghData(inert.Text(n)))
	}
	_, err := fmt.Fprintln(w, summary(r))
	return err
}

// ghData and ghProperty escape a workflow command's message and properties.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// JUnit XML: one test suite per file, one test case per object, an error finding a
// failure; warnings go to the test case's system-out.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Failures  []junitFailure `xml:"failure"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func junit(w io.Writer, r *check.Report) error {
	doc := junitSuites{Name: "butler check"}
	suites := map[string]int{}
	cases := map[string][2]int{}
	add := func(file, name string) (int, int) {
		name = inert.Text(name)
		key := file + "\x00" + name
		if at, ok := cases[key]; ok {
			return at[0], at[1]
		}
		si, ok := suites[file]
		if !ok {
			si = len(doc.Suites)
			suites[file] = si
			doc.Suites = append(doc.Suites, junitSuite{Name: inert.Text(displayFile(file))})
		}
		s := &doc.Suites[si]
		s.Cases = append(s.Cases, junitCase{Name: inert.Text(name), Classname: inert.Text(displayFile(file))})
		s.Tests++
		doc.Tests++
		cases[key] = [2]int{si, len(s.Cases) - 1}
		return si, len(s.Cases) - 1
	}
	for _, ob := range r.Objects {
		add(ob.File, object(check.Finding{Kind: ob.Kind, Namespace: ob.Namespace, Name: ob.Name}))
	}
	for _, fd := range r.Findings {
		si, ci := add(fd.File, object(fd))
		c := &doc.Suites[si].Cases[ci]
		line := inert.Line(fmt.Sprintf("%s:%d: %s%s [%s]", displayFile(fd.File), fd.Line, inert.Text(fd.Message), inert.Text(figures(fd)), fd.Rule))
		if fd.Severity != check.SeverityError {
			c.SystemOut += "warning: " + line + "\n"
			continue
		}
		if len(c.Failures) == 0 {
			doc.Suites[si].Failures++
			doc.Failures++
		}
		c.Failures = append(c.Failures, junitFailure{Message: inert.Text(fd.Message + figures(fd)), Type: inert.Text(fd.Rule), Text: line})
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}
