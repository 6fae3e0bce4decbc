package gate

import (
	"context"
	"io"

	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// flags are check's flags as the tests that came with this code from the command set
// them; judge runs them as the command does.
type flags struct {
	Manifests     []string
	Base          string
	BaseManifests []string
	Author        policy.Identity
	noReuse       bool
}

func judge(ctx context.Context, stdin io.Reader, f *flags) (*check.Report, error) {
	return Run(ctx, Request{
		Head:    Source{Paths: f.Manifests, Stdin: stdin},
		Base:    Source{Revision: f.Base, Paths: f.BaseManifests, Stdin: stdin},
		Author:  f.Author,
		Options: Options{noReuse: f.noReuse},
	})
}
