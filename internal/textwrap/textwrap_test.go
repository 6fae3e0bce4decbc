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

// TestHelpCommandLists: each command of a list stays on its own line at any width, its
// description wrapped under its column, in cobra's sections and a group's.
func TestHelpCommandLists(t *testing.T) {
	in := `Available Commands:
  addon       List, install and uninstall a cluster's named addons
  auth        Who you are

Cluster Commands:
  create      Create a tenant cluster, judged first by the server's rules

Additional help topics:
  butlerctl environment  Variables that are no flag, and what they do
  butlerctl x Kept whole: no gap of two spaces ends the command path
`
	want := `Available Commands:
  addon       List, install and
              uninstall a
              cluster's named
              addons
  auth        Who you are

Cluster Commands:
  create      Create a tenant
              cluster, judged
              first by the
              server's rules

Additional help topics:
  butlerctl environment  Variables
                         that
                         are no
                         flag,
                         and
                         what
                         they do
  butlerctl x Kept whole: no gap of two spaces ends the command path
`
	if got := Help(in, 32); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestHelpDefinitions: in prose, an indented term and its description in a column stay
// apart from the terms around them, the lines continuing the description joined to it and
// wrapped under the column.
func TestHelpDefinitions(t *testing.T) {
	in := `Variables:
  A_VAR=1     does one thing when it is set to one
  B=1|0       after a refusal, the next steps
              or off; by default only on a terminal
`
	want := `Variables:
  A_VAR=1     does one thing
              when it is set
              to one
  B=1|0       after a
              refusal, the
              next steps or
              off; by
              default only
              on a terminal
`
	if got := Help(in, 28); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
