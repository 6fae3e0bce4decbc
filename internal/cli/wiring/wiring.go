// Package wiring builds the real dependencies of both binaries: the process's streams and
// the store that --manifests (offline) or the kubeconfig (live) selects. It is the only
// place outside the stores' own tests that knows both store implementations.
package wiring

import (
	"context"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// NewFactory returns a factory over the process's streams for the binary named binary
// ("butlerctl", "butleradm"), which names itself in the User-Agent of its requests.
func NewFactory(binary string) *factory.Factory {
	return &factory.Factory{
		IOStreams: iostreams.System(),
		Options:   &factory.GlobalOptions{},
		Now:       time.Now,
		NewStore:  storeFor(butlerclient.UserAgent(binary)),
	}
}

func storeFor(userAgent string) func(context.Context, *factory.Factory) (store.Store, error) {
	return func(ctx context.Context, f *factory.Factory) (store.Store, error) {
		o := f.Options
		if len(o.Manifests) > 0 {
			return offline.Open(ctx, o.Manifests, f.IOStreams.In, o.As, o.AsGroups, manifest.Options{Strict: o.Strict})
		}
		return live.New(live.Options{
			Kubeconfig:     o.Kubeconfig,
			Context:        o.Context,
			As:             o.As,
			AsGroups:       o.AsGroups,
			RequestTimeout: o.RequestTimeout,
			UserAgent:      userAgent,
		})
	}
}
