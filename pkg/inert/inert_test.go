package inert

import "testing"

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"payments", "payments"},
		{"équipe paiements", "équipe paiements"},
		{"\x1b[2Jcleared", "^[[2Jcleared"},
		{"ok\rrefused", `ok\rrefused`},
		{"two\nlines", `two\nlines`},
		{"tab\there", `tab\there`},
		{"bell\x07", `bell\a`},
		{"del\x7f", `del\x7f`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"rtl\u202eevil", `rtl\u202eevil`},
		{"iso\u2066x\u2069", `iso\u2066x\u2069`},
		{"sep\u2028x", `sep\u2028x`},
		{"bad\xffutf8", `bad\ufffdutf8`},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"clusters/web.yaml", "clusters/web.yaml"},
		{"::error file=x::forged", `"::error file=x::forged"`},
		{"  ::add-mask::x", `"  ::add-mask::x"`},
		{"##vso[task.complete]", `"##vso[task.complete]"`},
		{"a::b", "a::b"},
		{"x\n::error::forged", `x\n::error::forged`},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTextDoesNotAllocateWhenSafe(t *testing.T) {
	s := "payments/prod: 3 clusters, équipe"
	if n := testing.AllocsPerRun(100, func() { _ = Text(s) }); n != 0 {
		t.Fatalf("Text allocated %v times for safe text", n)
	}
}
