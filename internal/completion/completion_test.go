package completion_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/butleradm"
	"github.com/butlerdotdev/butler-toolkit/internal/cli/butlerctl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/completion"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

var payments = filepath.Join("..", "..", "examples", "payments")

func newFactory(newStore func(context.Context, *factory.Factory) (store.Store, error)) *factory.Factory {
	streams, _, _, _ := iostreams.Test()
	return &factory.Factory{IOStreams: streams, Options: &factory.GlobalOptions{}, Now: time.Now, NewStore: newStore}
}

func offlineStore(context.Context, *factory.Factory) (store.Store, error) {
	return offline.Load([]string{payments}, nil, "", nil)
}

// complete runs `__complete args...` on a fresh tree and returns stdout.
func complete(t *testing.T, newCmd func(*factory.Factory) *cobra.Command, f *factory.Factory, args ...string) string {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	root := newCmd(f)
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("__complete %v: %v (%s)", args, err, errOut.String())
	}
	return out.String()
}

func TestNamesFromStore(t *testing.T) {
	f := newFactory(offlineStore)
	got := complete(t, butlerctl.NewCmd, f, "cluster", "get", "--team", "payments", "bob")
	if want := "bob-checkout\tteam payments, environment prod\n:4\n"; got != want {
		t.Errorf("cluster get bob: %q, want %q", got, want)
	}
	got = complete(t, butlerctl.NewCmd, newFactory(offlineStore), "env", "get", "--team", "payments", "")
	if !strings.HasPrefix(got, "dev\t") || !strings.Contains(got, "\nprod\t") {
		t.Errorf("env get: %q", got)
	}
}

// slowStore ignores its context, as a kubeconfig exec plugin or a black-holed server can.
type slowStore struct{ store.Store }

func (slowStore) ListTeams(context.Context) ([]v1alpha1.Team, error) {
	time.Sleep(time.Minute)
	return nil, nil
}

func TestSlowStoreIsCutShort(t *testing.T) {
	old := completion.Timeout
	completion.Timeout = 200 * time.Millisecond
	t.Cleanup(func() { completion.Timeout = old })
	start := time.Now()
	got := complete(t, butlerctl.NewCmd, newFactory(func(context.Context, *factory.Factory) (store.Store, error) {
		return slowStore{}, nil
	}), "team", "get", "")
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("completion took %v with a 200ms timeout", took)
	}
	if got != ":4\n" {
		t.Errorf("got %q, want nothing", got)
	}
}

func TestStoreErrorsAreSilent(t *testing.T) {
	f := newFactory(func(context.Context, *factory.Factory) (store.Store, error) {
		return nil, errors.New("dial tcp 10.0.0.1:6443: i/o timeout")
	})
	for _, args := range [][]string{
		{"cluster", "get", ""},
		{"cluster", "create", "x", "--team", ""},
		{"cluster", "create", "x", "--team", "payments", "--environment", ""},
		{"cluster", "create", "x", "--team", "payments", "--provider", ""},
	} {
		if got := complete(t, butlerctl.NewCmd, f, args...); got != ":4\n" {
			t.Errorf("%v: %q, want nothing and no file names", args, got)
		}
	}
}

// TestFlagsHaveCompletion: every flag of both trees that names something or takes a
// fixed value has a completion; so has every value flag (no file names for a quantity).
func TestFlagsHaveCompletion(t *testing.T) {
	for name, newCmd := range map[string]func(*factory.Factory) *cobra.Command{"butlerctl": butlerctl.NewCmd, "butleradm": butleradm.NewCmd} {
		root := newCmd(newFactory(offlineStore))
		var walk func(*cobra.Command)
		walk = func(c *cobra.Command) {
			check := func(fl *pflag.Flag) {
				if fl.Value.Type() == "bool" || fl.Name == "kubeconfig" || strings.HasSuffix(fl.Name, "file") || fl.Shorthand == "f" {
					return
				}
				if _, ok := c.GetFlagCompletionFunc(fl.Name); !ok {
					t.Errorf("%s: --%s has no completion", c.CommandPath(), fl.Name)
				}
			}
			c.LocalNonPersistentFlags().VisitAll(check)
			c.PersistentFlags().VisitAll(check)
			if c.Runnable() && c.ValidArgsFunction == nil && len(c.ValidArgs) == 0 &&
				!strings.Contains(strings.ToUpper(c.Use), "FILE") {
				t.Errorf("%s: positional arguments have no completion", c.CommandPath())
			}
			for _, s := range c.Commands() {
				walk(s)
			}
		}
		walk(root)
		if comp, _, err := root.Find([]string{"completion"}); err != nil || comp.Name() != "completion" {
			t.Errorf("%s: no completion command", name)
		}
	}
}

func TestRoles(t *testing.T) {
	got := complete(t, butleradm.NewCmd, newFactory(offlineStore), "env", "create", "qa", "--team", "payments", "--access-group", "devs:o")
	if got != "devs:operator\tcreate, scale and delete clusters\n:4\n" {
		t.Errorf("access-group devs:o: %q", got)
	}
}

// TestArgCompletionsNameCommands: every command path with a completion of its arguments is
// a command of butlerctl or butleradm, so no entry completes a command that does not exist.
func TestArgCompletionsNameCommands(t *testing.T) {
	exists := map[string]bool{}
	for _, newCmd := range []func(*factory.Factory) *cobra.Command{butlerctl.NewCmd, butleradm.NewCmd} {
		root := newCmd(newFactory(offlineStore))
		var walk func(*cobra.Command)
		walk = func(c *cobra.Command) {
			exists[strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), root.CommandPath()), " ")] = true
			for _, sub := range c.Commands() {
				walk(sub)
			}
		}
		walk(root)
	}
	for _, p := range completion.ArgPaths() {
		if !exists[p] {
			t.Errorf("completion of arguments for %q, which is a command of neither butlerctl nor butleradm", p)
		}
	}
}
