// Package structure holds no code: its tests keep the repository's shape as CONTRIBUTING.md
// states it. No non-test, non-generated Go function over 80 lines and no hand-written
// non-test Go file over 400 lines; pkg/ free of internal/, and pkg/policy free of the CLI;
// the stores, lookups and read-side helpers free of the command layer; commands importing
// no other command and asserting no store interfaces; the Factory stopping at NewCmd and
// Complete; pkg/policy and pkg/manifest naming no flags; and no file citing a
// specification that lives outside the repository (the rules are in docs/rules.md); and
// hack/race-packages.txt naming exactly the packages whose tests can run goroutines, the
// ones make test runs under the race detector, longest first as last measured.
// Today's exceptions are listed, each with its reason, in allowlist_test.go and
// commands_test.go.
package structure
