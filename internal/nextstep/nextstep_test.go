package nextstep

import (
	"strings"
	"testing"
)

func TestWrapKeepsCommandsWhole(t *testing.T) {
	long := "Next: delete one of yours (butlerctl cluster list --team payments), or ask a team admin (butlerctl team access payments) to raise the per-member cap."
	more := "More: butlerctl cluster create sandbox-3 --team payments --environment dev --manifests examples/payments --explain"
	got := Wrap([]string{long, more}, 60)
	for _, l := range got[:len(got)-1] {
		if len(l) > 60 {
			t.Errorf("line longer than 60: %q", l)
		}
	}
	if got[len(got)-1] != more {
		t.Errorf("the More: command is cut: %q", got[len(got)-1])
	}
	if !strings.HasPrefix(got[1], "  ") {
		t.Errorf("continuation lines are indented: %q", got[1])
	}
	if strings.Join(strings.Fields(strings.Join(got[:len(got)-1], " ")), " ") != long {
		t.Errorf("wrapping changed the words: %q", got)
	}
}
