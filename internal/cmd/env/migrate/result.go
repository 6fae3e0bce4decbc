package migrate

import (
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Result statuses, one per cluster the run touched or meant to.
const (
	StatusMigrated     = "migrated"      // label set, annotation removed
	StatusCleaned      = "cleaned"       // a leftover annotation removed
	StatusSkipped      = "skipped"       // changed meanwhile; re-planned, nothing left to do
	StatusGone         = "gone"          // deleted meanwhile
	StatusDenied       = "denied"        // refused by the server's rules
	StatusFailed       = "failed"        // any other error
	StatusNotFound     = "not-found"     // named, but does not exist
	StatusNotAttempted = "not-attempted" // the run was interrupted first
)

// Result is the outcome for one cluster.
type Result struct {
	Cluster string `json:"cluster"`
	From    string `json:"from"`
	To      string `json:"to"`
	Status  string `json:"status"`
	// Error is the server's message for a failure; Message explains a skip.
	Error   string `json:"error"`
	Message string `json:"message,omitempty"`
	// Attempts counts the patches of the first step (more than 1 after a Conflict).
	Attempts int `json:"attempts,omitempty"`
}

func (r Result) failed() bool {
	switch r.Status {
	case StatusDenied, StatusFailed, StatusNotFound, StatusNotAttempted:
		return true
	}
	return false
}

// Summary counts the outcomes.
type Summary struct {
	Planned      int  `json:"planned"` // moves and cleanups in the plan
	Migrated     int  `json:"migrated"`
	Cleaned      int  `json:"cleaned"`
	Skipped      int  `json:"skipped"` // in the plan, and re-planned away during the run
	Gone         int  `json:"gone"`
	Denied       int  `json:"denied"`
	Failed       int  `json:"failed"`
	NotFound     int  `json:"notFound"`
	NotAttempted int  `json:"notAttempted"`
	Conflicts    int  `json:"conflicts"` // Conflicts met, each followed by a re-read and a re-plan
	Interrupted  bool `json:"interrupted,omitempty"`
}

// Output is the -o json document.
type Output struct {
	Plan    policy.MigrationPlan `json:"plan"`
	DryRun  bool                 `json:"dryRun"`
	Results []Result             `json:"results"`
	Summary Summary              `json:"summary"`
}

// add records a result and counts it.
func (o *Output) add(r Result) {
	o.Results = append(o.Results, r)
	s := &o.Summary
	switch r.Status {
	case StatusMigrated:
		s.Migrated++
	case StatusCleaned:
		s.Cleaned++
	case StatusSkipped:
		s.Skipped++
	case StatusGone:
		s.Gone++
	case StatusDenied:
		s.Denied++
	case StatusFailed:
		s.Failed++
	case StatusNotFound:
		s.NotFound++
	case StatusNotAttempted:
		s.NotAttempted++
	}
}

// exitCode is nil when nothing failed, exit 4 when every failure was a refusal, else 1.
// The error is silent: the failures were reported already.
func exitCode(o *Output) error {
	s := o.Summary
	switch {
	case s.Denied+s.Failed+s.NotFound+s.NotAttempted == 0:
		return nil
	case s.Failed+s.NotFound+s.NotAttempted == 0:
		return &cmdutil.SilentError{Code: cmdutil.ExitDenied}
	}
	return &cmdutil.SilentError{Code: cmdutil.ExitFailure}
}
