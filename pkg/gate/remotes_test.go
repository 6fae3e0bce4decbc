package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
)

// TestRemotesRunNothing: the remotes are read from the repository the manifests are in
// (below its root too), and neither reading them nor finding the files a --base
// revision changed runs the commands the repository's configuration names: its
// fsmonitor, which git status would run (checked below, so the trap is armed), and its
// hooks. Outside a repository there are no remotes.
func TestRemotesRunNothing(t *testing.T) {
	repo := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "trap.sh")
	write(t, script, "#!/bin/sh\necho \"$0 $*\" >> "+marker+"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(t.TempDir(), "hooks")
	for _, h := range []string{"post-checkout", "pre-commit", "post-index-change", "reference-transaction"} {
		write(t, filepath.Join(hooks, h), "#!/bin/sh\necho hook >> "+marker+"\n")
		if err := os.Chmod(filepath.Join(hooks, h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitIn := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitIn("remote", "add", "origin", "git@github.com:example/platform.git")
	gitIn("remote", "add", "mirror.eu", "https://git.example.eu/platform")
	gitIn("config", "core.fsmonitor", script)
	gitIn("config", "core.hooksPath", hooks)

	got, err := remotes(context.Background(), filepath.Join(repo, "payments", "clusters"))
	if err != nil {
		t.Fatal(err)
	}
	want := []gitops.Remote{{Name: "origin", URL: "git@github.com:example/platform.git"}, {Name: "mirror.eu", URL: "https://git.example.eu/platform"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("remotes = %v, want %v", got, want)
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("reading the remotes ran the repository's commands: %s", data)
	}
	// Nor does --base's question of which files changed, when git refreshes its index
	// (a file's times changed, its bytes not: git reads it and writes the index, which
	// runs post-index-change).
	later := time.Now().Add(time.Hour)
	if err := filepath.WalkDir(filepath.Join(repo, "payments"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chtimes(p, later, later)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := changedFiles(context.Background(), repo, "HEAD"); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("finding the changed files ran the repository's commands: %s", data)
	}
	if got, err := remotes(context.Background(), t.TempDir()); got != nil || err != nil {
		t.Errorf("outside a repository: remotes %v, %v", got, err)
	}
	// A repository without remotes has none; a deadline past is an error, not none.
	empty := gitRepo(t)
	if got, err := remotes(context.Background(), empty); got != nil || err != nil {
		t.Errorf("no remote: remotes %v, %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := remotes(ctx, repo); err == nil {
		t.Error("a context ended: no error")
	}
	// The trap works: git status runs the fsmonitor.
	gitIn("status", "--short")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("git status did not run the fsmonitor: the test sets no trap")
	}
}

// A repository git refuses to read (owned by another user, not a safe.directory) is an
// error naming the refusal, not a repository without remotes, which would leave its
// GitRepositories unmatched without a word.
func TestRemotesOfARefusedRepository(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give the repository to another user")
	}
	repo := gitRepo(t)
	t.Setenv("HOME", t.TempDir()) // no safe.directory of the user's
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if err := filepath.WalkDir(repo, func(p string, _ os.DirEntry, err error) error {
		if err == nil {
			err = os.Lchown(p, 65534, 65534)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := remotes(context.Background(), repo); err == nil || !strings.Contains(err.Error(), "dubious ownership") {
		t.Errorf("remotes of a repository owned by another user: %v, %v; want git's refusal", got, err)
	}
}
