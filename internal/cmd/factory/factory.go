// Package factory holds what a command is handed: its I/O streams, the global options,
// the clock and the store, built once; tests replace the fields.
package factory

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// GlobalOptions are the flags every command of both binaries takes.
type GlobalOptions struct {
	Kubeconfig string
	Context    string
	Namespace  string
	As         string
	AsGroups   []string
	// AsSource is where --as and --as-group came from: cmdutil.SourceCommandLine, SourceEnv
	// or SourceConfig ("" when neither is set). Live, only the command line (or
	// BUTLER_IMPERSONATE=1) makes them impersonation; see ImpersonateEnv.
	AsSource       string
	RequestTimeout string
	Manifests      []string
	// Exclude are --exclude's patterns: paths below a directory of --manifests left out.
	Exclude []string
	// Strict refuses manifests of kinds the tools do not check instead of skipping them.
	Strict  bool
	Output  string
	NoColor bool
	Config  string
	// DryRun is --dry-run of a command that writes (AddDryRun): the store built for it
	// writes nothing (client) or sends each write with dryRun=All (server).
	DryRun cmdutil.DryRun
}

// ImpersonateEnv, set to 1, lets --as and --as-group from BUTLER_AS or the config file
// impersonate on a live cluster; otherwise only the flags typed on the command line do,
// so an identity exported for work on manifests never silently acts on a cluster.
const ImpersonateEnv = "BUTLER_IMPERSONATE"

// Factory hands commands their dependencies; tests replace the fields.
type Factory struct {
	IOStreams *iostreams.IOStreams
	Options   *GlobalOptions
	// Now is the clock, so ages in golden output can be fixed.
	Now func() time.Time
	// NewStore builds the store for the current options: manifests when --manifests is
	// given, else a live cluster.
	NewStore func(ctx context.Context, f *Factory) (store.Store, error)

	store store.Store
}

// Store returns the store, building it once.
func (f *Factory) Store(ctx context.Context) (store.Store, error) {
	if f.store != nil {
		return f.store, nil
	}
	s, err := f.NewStore(ctx, f)
	if err != nil {
		return nil, err
	}
	f.store = s
	return s, nil
}

// Close releases what the store holds, such as the offline store's lock on the
// manifests; the runner calls it when the command ends.
func (f *Factory) Close() error {
	c, ok := f.store.(io.Closer)
	if !ok {
		return nil
	}
	f.store = nil
	return c.Close()
}

// Offline reports whether the command works on manifests.
func (f *Factory) Offline() bool { return len(f.Options.Manifests) > 0 }

// Errorf prints a message to stderr.
func (f *Factory) Errorf(format string, a ...any) {
	fmt.Fprintf(f.IOStreams.ErrOut, format, a...)
}

// AddDryRun registers --dry-run on a command that writes (cmdutil.AddDryRunFlag) into the
// global options, where the store is built from: whatever the command does, its store
// then cannot write. The command reads the value as its Deps' DryRun.
func AddDryRun(cmd *cobra.Command, f *Factory) {
	cmdutil.AddDryRunFlag(cmd, &f.Options.DryRun)
}
