package cmdutil

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

// ReapplyConfig puts another copy of the config file in place of the one read: what the
// first set goes back to its default, the environment and the command line still win.
func TestReapplyConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("applier: pr\nas-group: [admins]\nteam: t1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BUTLER_TEAM", "from-env")
	var applier, team, format string
	var groups []string
	cmd := &cobra.Command{Use: "x"}
	cmd.Flags().StringVar(&applier, "applier", "", "")
	cmd.Flags().StringArrayVar(&groups, "as-group", nil, "")
	cmd.Flags().StringVar(&team, "team", "", "")
	cmd.Flags().StringVar(&format, "format", "text", "")
	if err := cmd.Flags().Parse([]string{"--format", "github"}); err != nil {
		t.Fatal(err)
	}
	if err := ApplyConfig(cmd, path); err != nil {
		t.Fatal(err)
	}
	if applier != "pr" || !slices.Equal(groups, []string{"admins"}) || team != "from-env" {
		t.Fatalf("first read: applier %q, groups %q, team %q", applier, groups, team)
	}
	if err := ReapplyConfig(cmd, path, []byte("applier: base\nformat: junit\n")); err != nil {
		t.Fatal(err)
	}
	if applier != "base" || len(groups) != 0 || team != "from-env" || format != "github" {
		t.Errorf("the base's copy: applier %q, groups %q, team %q, format %q; want base, none, from-env, github", applier, groups, team, format)
	}
	if FlagSource(cmd.Flags(), "as-group") != SourceDefault || FlagSource(cmd.Flags(), "applier") != SourceConfig {
		t.Errorf("sources: as-group %q, applier %q", FlagSource(cmd.Flags(), "as-group"), FlagSource(cmd.Flags(), "applier"))
	}
	if err := ReapplyConfig(cmd, path, nil); err != nil {
		t.Fatal(err)
	}
	if applier != "" || team != "from-env" {
		t.Errorf("no copy: applier %q, team %q; want none, from-env", applier, team)
	}
}
