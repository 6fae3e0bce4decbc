package completion

import (
	"context"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// withStore runs fn on the store of the command line being completed, within Timeout;
// any error, and a timeout, complete nothing.
func (c *completer) withStore(cmd *cobra.Command, fn func(ctx context.Context, s store.Store) []cobra.Completion) []cobra.Completion {
	// Completion skips the command's PersistentPreRunE: fill unset flags from BUTLER_*
	// and the config file here, as a run would.
	_ = cmdutil.ApplyConfig(cmd, c.f.Options.Config)
	for _, m := range c.f.Options.Manifests {
		if m == "-" { // stdin is the shell's: never read it
			return nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	done := make(chan []cobra.Completion, 1)
	go func() {
		defer func() {
			if recover() != nil {
				done <- nil
			}
		}()
		s, err := c.f.Store(ctx)
		if err != nil {
			done <- nil
			return
		}
		done <- fn(ctx, s)
	}()
	// A store that ignores the context (a kubeconfig exec plugin) is abandoned: the
	// completion process ends right after.
	select {
	case out := <-done:
		return out
	case <-ctx.Done():
		return nil
	}
}

// flag is the value of a flag of the command line being completed.
func flag(cmd *cobra.Command, name string) string {
	if fl := cmd.Flags().Lookup(name); fl != nil {
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			if v := sv.GetSlice(); len(v) > 0 {
				return v[len(v)-1]
			}
			return ""
		}
		return fl.Value.String()
	}
	return ""
}

// names sorts, de-duplicates, drops the values in skip and keeps those starting with
// toComplete.
func names(values []cobra.Completion, toComplete string, skip []string) []cobra.Completion {
	seen := map[string]bool{}
	for _, s := range skip {
		seen[s] = true
	}
	out := make([]cobra.Completion, 0, len(values))
	for _, v := range values {
		name, _, _ := strings.Cut(v, "\t")
		if seen[name] || !strings.HasPrefix(name, toComplete) {
			continue
		}
		seen[name] = true
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// describe joins the non-empty parts of a description.
func describe(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	d := strings.Join(keep, ", ")
	if i := strings.IndexByte(d, '\n'); i >= 0 {
		d = d[:i]
	}
	return d
}
