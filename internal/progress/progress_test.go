package progress_test

import (
	"bytes"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/progress"
)

func TestModeFor(t *testing.T) {
	s, _, _, _ := iostreams.Test()
	if m := progress.ModeFor(s, false); m != progress.Lines {
		t.Errorf("piped, human: %v, want Lines", m)
	}
	if m := progress.ModeFor(s, true); m != progress.Off {
		t.Errorf("piped, structured: %v, want Off", m)
	}
	s.SetTTY(false, false, true)
	if m := progress.ModeFor(s, true); m != progress.Redraw {
		t.Errorf("stderr a terminal: %v, want Redraw", m)
	}
}

func TestWrites(t *testing.T) {
	for _, tc := range []struct {
		mode progress.Mode
		keep bool
		want string
	}{
		{progress.Off, true, ""},
		{progress.Lines, true, "step 1\n"},
		{progress.Redraw, true, "\r\x1b[Kat 1\r\x1b[Kat 2\n"},
		{progress.Redraw, false, "\r\x1b[Kat 1\r\x1b[Kat 2\r\x1b[K"},
	} {
		var b bytes.Buffer
		r := progress.NewWriter(&b, tc.mode)
		r.Status("at %d", 1)
		r.Line("step %d", 1)
		r.Status("at %d", 2)
		r.End(tc.keep)
		r.End(tc.keep)          // a second End writes nothing
		r.Line("after the end") // nor does anything after it
		r.Status("after the end")
		if b.String() != tc.want {
			t.Errorf("mode %v keep %v: %q, want %q", tc.mode, tc.keep, b.String(), tc.want)
		}
	}
}
