package cli_test

import (
	"regexp"

	"github.com/rogpeppe/go-internal/testscript"
)

// diffTemp and diffTime are what a unified diff of diff's temporary directories holds
// that differs from run to run: the directories' random names and the files' times.
var (
	diffTemp = regexp.MustCompile(`\S*/(LIVE|MERGED)-[0-9]+/`)
	diffTime = regexp.MustCompile(`(?m)^((?:---|\+\+\+) \S+)\t.*$`)
)

// cmdCmpDiff compares the unified diff a command printed with a golden, its temporary
// directories named LIVE/ and MERGED/ and the files' times left out:
//
//	cmpdiff stdout want.diff
func cmdCmpDiff(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmpdiff stdout|stderr|FILE GOLDEN")
	}
	got := diffTime.ReplaceAllString(diffTemp.ReplaceAllString(ts.ReadFile(args[0]), "$1/"), "$1")
	if want := ts.ReadFile(args[1]); got != want {
		ts.Logf("%s (normalised):\n%s", args[0], got)
		ts.Fatalf("%s and %s differ", args[0], args[1])
	}
}
