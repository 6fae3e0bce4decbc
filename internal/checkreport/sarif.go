package checkreport

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/buildinfo"
	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// SARIF 2.1.0, the static-analysis format code scanning reads: one run, a rule per rule
// id the findings use, a result per finding on its file and line.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
	HelpURI          string       `json:"helpUri,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

const (
	sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"
	rulesDoc    = "https://github.com/butlerdotdev/butler-toolkit/blob/main/docs/rules.md"
)

func sarif(w io.Writer, r *check.Report) error {
	ids := map[string]int{}
	var rules []string
	for _, fd := range r.Findings {
		if _, ok := ids[fd.Rule]; !ok {
			ids[fd.Rule] = 0
			rules = append(rules, fd.Rule)
		}
	}
	sort.Strings(rules)
	driver := sarifDriver{Name: "butler check", Version: buildinfo.Get().Version, InformationURI: rulesDoc, Rules: []sarifRule{}}
	for i, id := range rules {
		ids[id] = i
		title := policy.RuleTitle(id)
		if title == "" || title == id {
			title = strings.ReplaceAll(id, "-", " ")
		}
		driver.Rules = append(driver.Rules, sarifRule{ID: id, ShortDescription: sarifMessage{Text: title}, HelpURI: rulesDoc})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}
	for _, fd := range r.Findings {
		msg := inert.Text(object(fd) + ": " + fd.Message + figures(fd))
		if fd.Note != "" {
			msg += " (" + inert.Text(fd.Note) + ")"
		}
		res := sarifResult{RuleID: fd.Rule, RuleIndex: ids[fd.Rule], Level: string(fd.Severity), Message: sarifMessage{Text: msg}}
		if fd.File != "" && fd.File != "-" {
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: fileURI(fd.File)}}}
			if fd.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: fd.Line}
			}
			res.Locations = []sarifLocation{loc}
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// fileURI is a path as a relative URI reference: slashes, each segment escaped.
func fileURI(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}
