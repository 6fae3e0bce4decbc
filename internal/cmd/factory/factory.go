// Package factory wires the real dependencies: the process's streams and the store that
// --manifests (offline) or the kubeconfig (live) selects.
package factory

import (
	"context"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
)

// New returns a factory over the process's streams.
func New() *cmdutil.Factory {
	return &cmdutil.Factory{
		IOStreams: iostreams.System(),
		Options:   &cmdutil.GlobalOptions{},
		Now:       time.Now,
		NewStore:  newStore,
	}
}

func newStore(ctx context.Context, f *cmdutil.Factory) (store.Store, error) {
	o := f.Options
	if len(o.Manifests) > 0 {
		return offline.Load(o.Manifests, f.IOStreams.In, o.As, o.AsGroups)
	}
	return live.New(live.Options{
		Kubeconfig:     o.Kubeconfig,
		Context:        o.Context,
		As:             o.As,
		AsGroups:       o.AsGroups,
		RequestTimeout: o.RequestTimeout,
	})
}
