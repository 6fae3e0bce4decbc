package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Operation is the kind of request being admitted.
type Operation string

// Operations.
const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
	Delete Operation = "DELETE"
)

// Check records one rule the preflight evaluated, allowed or not, with its numbers, so a CLI
// can explain an approval as well as a denial. Numbers are strings so that counts and
// quantities print the same way the messages do; empty means "not applicable".
type Check struct {
	Rule      string `json:"rule"`
	Field     string `json:"field,omitempty"`
	Allowed   bool   `json:"allowed"`
	Limit     string `json:"limit,omitempty"`
	Usage     string `json:"usage,omitempty"`     // before the request
	Requested string `json:"requested,omitempty"` // what the request adds or asks for
	After     string `json:"after,omitempty"`     // usage after the request
	Message   string `json:"message,omitempty"`   // the server's message when denied
	// Policy names the ClusterCreationPolicy whose rule this is.
	Policy string `json:"policy,omitempty"`
	// ClientSide marks the team feature restrictions: the tools enforce them, the server
	// does not.
	ClientSide bool `json:"clientSide,omitempty"`
	// Warning is set on an allowed check the user should know about: a quota the server
	// checks on create only and this update goes past, a check the server skips.
	Warning string `json:"warning,omitempty"`
}

// Violation is one denial: the field error the server would return and the rule behind it.
type Violation struct {
	Rule  string
	Error *field.Error
}

// Decision is the outcome of an admission preflight.
type Decision struct {
	Violations []Violation
	Checks     []Check
}

// Allowed is true when nothing was violated.
func (d *Decision) Allowed() bool { return len(d.Violations) == 0 }

// Warnings are the warnings of the allowed checks, in evaluation order.
func (d *Decision) Warnings() []string {
	var out []string
	for _, c := range d.Checks {
		if c.Warning != "" {
			out = append(out, c.Warning)
		}
	}
	return out
}

// ErrorList returns the violations as field errors, in evaluation order.
func (d *Decision) ErrorList() field.ErrorList {
	list := make(field.ErrorList, 0, len(d.Violations))
	for _, v := range d.Violations {
		list = append(list, v.Error)
	}
	return list
}

// Err is the aggregate the server would return: one error as is, several as "[e1, e2]";
// nil when allowed.
func (d *Decision) Err() error {
	if d.Allowed() {
		return nil
	}
	return d.ErrorList().ToAggregate()
}
