package clusterview

import (
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Violation is one denial of cluster create or scale in their structured view
// (docs/output.md): the server's field error and the rule behind it.
type Violation struct {
	Field   string `json:"field"`
	Type    string `json:"type"`
	Message string `json:"message"`
	Rule    string `json:"rule"`
}

// DenialDoc is a refusal for the printer: nothing for people (the server's message goes to
// stderr as the error), the violations for programs, since a refusal has no object.
func DenialDoc(d policy.Decision) output.Doc {
	vs := make([]Violation, 0, len(d.Violations))
	for _, v := range d.Violations {
		vs = append(vs, Violation{Field: v.Error.Field, Type: string(v.Error.Type), Message: v.Error.Error(), Rule: v.Rule})
	}
	return output.Doc{One: true, View: vs, ViewOnly: true}
}
