package cli_test

import (
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

// The live control plane has Butler's validating webhooks registered (testenv.WithWebhook,
// served in-process by internal/webhook). Every script starts with them dormant: each
// review is answered allowed without being evaluated, as on a cluster whose webhooks are
// switched off, so the payments fixtures load (ledger-legacy predates environments and could not be
// created under the rules) and the other scripts see a permissive server. A script that
// wants the server to enforce says so:
//
//	webhook on
//
// From there on, a write with plain kubectl is refused with the contract's messages.
// `webhook off` makes it dormant again.
func cmdWebhook(env *testenv.Env) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 || (args[0] != "on" && args[0] != "off") {
			ts.Fatalf("usage: webhook on|off")
		}
		env.EnforceWebhook(args[0] == "on")
	}
}
