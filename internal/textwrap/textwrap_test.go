package textwrap

import "testing"

func TestIndent(t *testing.T) {
	for _, tc := range []struct {
		text, first, rest string
		width             int
		want              string
	}{
		{"a b c", "  7: ", "     ", 0, "  7: a b c"},
		{"one two three four", "- ", "  ", 10, "- one two\n  three\n  four"},
		// A word longer than the line stays whole, on a line of its own.
		{"see https://example.com/a/very/long/path now", "", "  ", 16, "see\n  https://example.com/a/very/long/path\n  now"},
		// Display width: an escape sequence takes no column.
		{"\x1b[1mbold\x1b[0m word", "", "", 9, "\x1b[1mbold\x1b[0m word"},
	} {
		if got := Indent(tc.text, tc.first, tc.rest, tc.width); got != tc.want {
			t.Errorf("Indent(%q, %d) = %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}

func TestHelp(t *testing.T) {
	in := `Print things and more things, wrapped across lines that run past the
terminal's edge when it is narrow.
  - an item that is long enough to wrap somewhere
Short line.

Usage:
  butlerctl thing list [flags] with a very long usage line that stays whole

Examples:
  butlerctl thing list --a-very-long-flag value --another-long-flag value

Flags:
  -o, --output string   Output format: json, yaml, and more formats
      --x               Short
`
	want := `Print things and more things,
wrapped across lines that run
past the terminal's edge when it
is narrow.
  - an item that is long enough
    to wrap somewhere
Short line.

Usage:
  butlerctl thing list [flags] with a very long usage line that stays whole

Examples:
  butlerctl thing list --a-very-long-flag value --another-long-flag value

Flags:
  -o, --output string   Output
                        format:
                        json,
                        yaml,
                        and more
                        formats
      --x               Short
`
	if got := Help(in, 32); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Help(in, 0) != in {
		t.Error("width 0 changed the text")
	}
}
