package factory

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// StrictFlag is the name of --strict: the root registers it, check says where it was set.
const StrictFlag = "strict"

// ReapplyConfig takes the config file's settings again from data, another copy of the
// file (nil: none), in place of the one on disk (cmdutil.ReapplyConfig), and normalises
// --as and --as-group again, as the run loop did for the first.
func (o *GlobalOptions) ReapplyConfig(cmd *cobra.Command, data []byte) error {
	if err := cmdutil.ReapplyConfig(cmd, cmdutil.ConfigPath(o.Config), data); err != nil {
		return err
	}
	return o.IdentityFlags(cmd)
}

// IdentityFlags normalises --as (surrounding spaces trimmed; a name with a non-ASCII
// look-alike or inner white space refused) and records where --as and --as-group came
// from, for the live store's impersonation rule.
func (o *GlobalOptions) IdentityFlags(cmd *cobra.Command) error {
	if o.As != "" {
		o.As = strings.TrimSpace(o.As)
		if err := policy.CheckEmail(o.As); err != nil {
			return cmdutil.UsageError("--as: %v", err)
		}
		if o.As == "" {
			return cmdutil.UsageError("--as: empty user name")
		}
	}
	for i, g := range o.AsGroups {
		o.AsGroups[i] = strings.TrimSpace(g)
	}
	o.AsSource = ""
	for _, name := range []string{"as", "as-group"} {
		switch src := cmdutil.FlagSource(cmd.Flags(), name); {
		case src == cmdutil.SourceCommandLine:
			o.AsSource = src
		case src != "" && o.AsSource == "":
			o.AsSource = src
		}
	}
	return nil
}
