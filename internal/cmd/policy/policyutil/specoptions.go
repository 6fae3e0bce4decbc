package policyutil

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Writer is what policy create, update and delete read and write: what the shared checks
// read (Store) and the policies' writes.
type Writer interface {
	Store
	store.CreationPolicies
}

var _ Writer = store.Store(nil)

// SpecOptions are what policy create and update take, embedded in their Options: the
// policy's NAME, its spec from the flags or from -f FILE, and the command's dependencies.
type SpecOptions struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Writer]

	Name, Scope, Team, Environment, File string
	Providers, Rules                     []string
	// manifestsStdin: --manifests - reads the tree from standard input.
	manifestsStdin bool
}

// CompleteShared takes from the Factory what run needs; it reads nothing yet.
func (o *SpecOptions) CompleteShared(f *factory.Factory, _ *cobra.Command, _ []string) error {
	o.manifestsStdin = slices.Contains(f.Options.Manifests, "-")
	return nil
}

// OneStdin refuses -f - with --manifests -, before anything is read: both would read
// standard input.
func (o *SpecOptions) OneStdin() error {
	if o.File == "-" && o.manifestsStdin {
		return cmdutil.UsageError("-f - and --manifests - both read standard input: give one of them a file")
	}
	return nil
}

// FromFile reads the policy of -f FILE as FromFile does; NAME, when given, must be the
// file's.
func (o *SpecOptions) FromFile() (*v1alpha1.ClusterCreationPolicy, error) {
	return FromFile(o.File, o.Name, o.IO.In)
}
