package cmdutil

import (
	"fmt"

	"github.com/spf13/cobra"
)

// DryRun is the value of --dry-run, one meaning on every command that writes, as kubectl's:
// nothing is written, the whole preflight runs, and the output is what would be written.
// "client" stops before the store sends or writes anything; "server" (live only) sends
// each write with dryRun=All, so RBAC and every admission step, webhooks included, decide
// and nothing is stored.
type DryRun string

// The values of --dry-run; bare --dry-run is client.
const (
	DryRunNone   DryRun = "none"
	DryRunClient DryRun = "client"
	DryRunServer DryRun = "server"
)

// Set implements pflag.Value: a value that is none of the three is a usage error.
func (d *DryRun) Set(s string) error {
	switch v := DryRun(s); v {
	case DryRunNone, DryRunClient, DryRunServer:
		*d = v
		return nil
	case "true": // --dry-run=true, as kubectl still reads it
		*d = DryRunClient
		return nil
	case "false":
		*d = DryRunNone
		return nil
	}
	return fmt.Errorf("%q is not one of none, client, server", s)
}

// String implements pflag.Value.
func (d *DryRun) String() string {
	if *d == "" {
		return string(DryRunNone)
	}
	return string(*d)
}

// Type implements pflag.Value.
func (d *DryRun) Type() string { return "string" }

// On reports whether nothing is to be written (client or server).
func (d DryRun) On() bool { return d == DryRunClient || d == DryRunServer }

// Client reports --dry-run or --dry-run=client.
func (d DryRun) Client() bool { return d == DryRunClient }

// Server reports --dry-run=server.
func (d DryRun) Server() bool { return d == DryRunServer }

// Suffix is what the line reporting a write ends with, as kubectl's: " (dry run)",
// " (server dry run)", or nothing.
func (d DryRun) Suffix() string {
	switch d {
	case DryRunClient:
		return " (dry run)"
	case DryRunServer:
		return " (server dry run)"
	}
	return ""
}

// DryRunUsage is the help of --dry-run, the same on every command.
const DryRunUsage = `Write nothing: "client" (bare --dry-run) runs every check and prints what would be written; "server" (live) sends the writes with server-side dry run, admission webhooks included`

// AddDryRunFlag registers --dry-run[=none|client|server] into p, the one way every command
// that writes takes it.
func AddDryRunFlag(cmd *cobra.Command, p *DryRun) {
	*p = DryRunNone
	cmd.Flags().Var(p, "dry-run", DryRunUsage)
	cmd.Flags().Lookup("dry-run").NoOptDefVal = string(DryRunClient)
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cobra.FixedCompletions([]cobra.Completion{"none", "client", "server"}, cobra.ShellCompDirectiveNoFileComp))
}

// ErrDryRunServerOffline is --dry-run=server on manifests: there is no server to send to.
func ErrDryRunServerOffline() error {
	return UsageError("--dry-run=server sends to a live cluster: it does not go with --manifests (use --dry-run or --dry-run=client)")
}
