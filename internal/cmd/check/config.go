package check

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/gate"
)

// A pull request must never choose who judges it: under --base, a file that decides who
// the author is or which rules apply (the author map, the config file), when it is a file
// of the repository under review, is read as the base revision holds it (gate.BaseCopy). A
// change to it takes effect once it is merged. A file outside the repository is the CI's
// own and is read as it is (docs/ci-on-manifests.md).

// configFromBase puts in place, under --base, the base's copy of a config file of the
// repository (the applier, --as-group, --complete, --fail-on: every flag it may set),
// before the Options are completed. A config file that sets --base itself is refused:
// the base must come from outside the change.
func configFromBase(cmd *cobra.Command, g *factory.GlobalOptions, base string, errOut io.Writer) error {
	path := cmdutil.ConfigPath(g.Config)
	if base == "" || path == "" {
		return nil
	}
	data, inRepo, err := gate.BaseCopy(cmd.Context(), "", base, path, cmdutil.MaxConfigBytes)
	if err != nil {
		return cmdutil.UsageError("config file %s: reading the base's copy (--base): %v", path, err)
	}
	if !inRepo {
		return nil
	}
	if cmdutil.FlagSource(cmd.Flags(), "base") == cmdutil.SourceConfig {
		return cmdutil.UsageError("--base: set by the config file %s, which is in the repository under review: give --base on the command line or in BUTLER_BASE", path)
	}
	disk, _ := fileio.ReadFile(path, cmdutil.MaxConfigBytes)
	if data != nil && bytes.Equal(disk, data) {
		return nil // what was read already
	}
	if data == nil {
		fmt.Fprintf(errOut, "config file %s: not in the base (--base %s), so none is read: the change does not choose how it is judged\n", path, base)
	} else {
		fmt.Fprintf(errOut, "config file %s: the base's copy (--base %s) is read, not the working tree's: the change does not choose how it is judged\n", path, base)
	}
	return g.ReapplyConfig(cmd, data)
}
