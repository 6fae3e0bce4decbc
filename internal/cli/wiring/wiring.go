// Package wiring builds the real dependencies of both binaries: the process's streams and
// the store that --manifests (offline) or the kubeconfig (live) selects. It is the only
// place outside the stores' own tests that knows both store implementations.
package wiring

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/butlerclient"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/lookup"
	"github.com/butlerdotdev/butler-toolkit/internal/memlimit"
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
			if o.DryRun.Server() {
				return nil, cmdutil.ErrDryRunServerOffline()
			}
			stdinHint(f)
			// The load keeps records of a large tree's clusters (manifest.WholeBytes): little,
			// so the collector's headroom would be most of its memory (internal/memlimit).
			memlimit.Follow(32<<20, 8<<20, 1.5)
			s, err := offline.Open(ctx, o.Manifests, f.IOStreams.In, o.As, o.AsGroups, manifest.Options{Strict: o.Strict, Exclude: o.Exclude})
			if err != nil {
				return nil, err // not a typed nil in the interface
			}
			if o.DryRun.On() {
				s.SetDryRun()
			}
			asHint(ctx, f, s)
			return s, nil
		}
		as, groups := impersonation(f)
		s, err := live.New(live.Options{
			Kubeconfig:     o.Kubeconfig,
			Context:        o.Context,
			As:             as,
			AsGroups:       groups,
			RequestTimeout: o.RequestTimeout,
			UserAgent:      userAgent,
			DryRun:         liveDryRun(o.DryRun),
		})
		if err != nil {
			return nil, err
		}
		if s.Login() != nil {
			f.Errorf("Note: no kubeconfig; using %s\n", s.CredentialSource())
		}
		if as != "" {
			f.Errorf("Warning: impersonating %q%s on %s: the server checks that identity's permissions, not yours\n", as, groupList(groups), s.Host())
		}
		return s, nil
	}
}

// impersonation applies the rule for live clusters: --as and --as-group typed on the
// command line impersonate; from BUTLER_AS or the config file (meant for manifests) only
// with BUTLER_IMPERSONATE=1, and otherwise are left out with a note.
func impersonation(f *factory.Factory) (string, []string) {
	o := f.Options
	if o.As == "" && len(o.AsGroups) == 0 {
		return "", nil
	}
	if o.AsSource == cmdutil.SourceCommandLine || os.Getenv(factory.ImpersonateEnv) == "1" {
		return o.As, o.AsGroups
	}
	if o.AsSource == "" {
		return "", nil // completion: the run's hooks did not say where --as came from; stay silent
	}
	from := "BUTLER_AS/BUTLER_AS_GROUP"
	if o.AsSource == cmdutil.SourceConfig {
		from = "the config file"
	}
	f.Errorf("Note: not impersonating %q from %s on a live cluster (it applies to --manifests); pass --as on the command line, or set %s=1\n", o.As, from, factory.ImpersonateEnv)
	return "", nil
}

func groupList(groups []string) string {
	if len(groups) == 0 {
		return ""
	}
	return fmt.Sprintf(" (groups %s)", strings.Join(groups, ", "))
}

// stdinHint tells someone at a terminal that --manifests - is waiting for them to type or
// paste the manifests, as kubectl apply -f - leaves them guessing: on stderr, before the
// read blocks.
func stdinHint(f *factory.Factory) {
	if !f.IOStreams.IsStdinTTY() {
		return
	}
	for _, m := range f.Options.Manifests {
		if m == "-" {
			fmt.Fprintln(f.IOStreams.ErrOut, "Reading manifests from standard input (--manifests -): paste or type them, then press Ctrl-D on a line of its own.")
			return
		}
	}
}

// asHint suggests the e-mail an --as that is no e-mail most likely means (--as carol where
// carol@example.com exists): identities are e-mails compared whole, so the name alone
// matches no team's access. Offline only, where --as is the identity every rule is judged
// for; live the server decides who an impersonated name is.
func asHint(ctx context.Context, f *factory.Factory, s store.Reader) {
	o := f.Options
	if o.As == "" || o.AsSource == "" { // completion: stay silent
		return
	}
	if emails := lookup.LikelyEmails(ctx, s, o.As); len(emails) > 0 {
		f.Errorf("Hint: --as %q is no e-mail, and identities are e-mails compared whole: did you mean --as %s?\n", o.As, strings.Join(emails, " or --as "))
	}
}

// liveDryRun is the live store's mode for --dry-run.
func liveDryRun(d cmdutil.DryRun) string {
	switch {
	case d.Client():
		return live.DryRunClient
	case d.Server():
		return live.DryRunServer
	}
	return ""
}
