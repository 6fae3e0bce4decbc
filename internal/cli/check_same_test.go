package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCheckSameVerdictAsCreate generates a change per author (clusters added in dev and
// prod, in name order, some past a cap) and compares, for every added cluster, check's
// verdict with `cluster create`'s for the same cluster, same author, on the tree the server
// would hold at that request: the base plus the change's earlier clusters that were
// admitted. Allowed by one
// means allowed by the other; a refusal carries the same messages.
func TestCheckSameVerdictAsCreate(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	authors := []string{"alice@example.com", "bob@example.com", "carol@example.com", "dave@example.com", "olivia@example.com"}
	envs := []string{"dev", "prod", "dev", "prod", "dev", "prod", "prod"}
	allowed, refused := 0, 0
	for _, author := range authors {
		dir := t.TempDir()
		base, progress, head := filepath.Join(dir, "base"), filepath.Join(dir, "progress"), filepath.Join(dir, "head")
		for _, d := range []string{base, progress, head} {
			if err := copyDir(filepath.Join(root, "examples", "payments"), d); err != nil {
				t.Fatal(err)
			}
		}
		type added struct{ name, code, stderr string }
		var cs []added
		for i, env := range envs {
			name := fmt.Sprintf("gen-%02d", i)
			// The cluster as create renders it (defaults resolved; rendering does not depend
			// on who asks), with the author as its creator.
			r := butlerctlIn("cluster", "create", name, "--team", "payments", "--environment", env, "--as", "olivia@example.com", "--manifests", base, "-o", "yaml")
			if r.code != 0 {
				t.Fatalf("render %s: exit %d: %s", name, r.code, r.stderr)
			}
			obj := strings.Replace(r.stdout, "creator-email: olivia@example.com", "creator-email: "+author, 1)
			got := butlerctlIn("cluster", "create", name, "--team", "payments", "--environment", env, "--as", author, "--manifests", progress)
			cs = append(cs, added{name, fmt.Sprint(got.code), got.stderr})
			// A refused create is not on the server for the next request to meet.
			dirs := []string{head}
			if got.code == 0 {
				dirs = append(dirs, progress)
			}
			for _, d := range dirs {
				if err := os.WriteFile(filepath.Join(d, "clusters", name+".yaml"), []byte(obj), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		chk := butlerctlIn("check", "--manifests", head, "--base-manifests", base, "--as", author, "-o", "json")
		var report struct {
			Findings []struct{ File, Message, Severity, Rule string }
		}
		if err := json.Unmarshal([]byte(chk.stdout), &report); err != nil {
			t.Fatalf("%s: check -o json: %v\n%s%s", author, err, chk.stdout, chk.stderr)
		}
		// An author the base does not name gets one finding for the whole change, where
		// create refuses each cluster for the role.
		unknown := false
		for _, f := range report.Findings {
			unknown = unknown || f.Rule == "author-unknown"
		}
		for _, c := range cs {
			if unknown && c.code == "4" && strings.Contains(c.stderr, "role none (not a member)") {
				refused++
				continue
			}
			var errs []string
			for _, f := range report.Findings {
				if f.Severity == "error" && filepath.Base(f.File) == c.name+".yaml" {
					errs = append(errs, f.Message)
				}
			}
			switch c.code {
			case "0":
				allowed++
				if len(errs) > 0 {
					t.Errorf("%s adds %s: create allows it, check refuses: %q", author, c.name, errs)
				}
			case "4":
				refused++
				if len(errs) == 0 {
					t.Errorf("%s adds %s: create refuses it (%s), check allows it", author, c.name, strings.TrimSpace(c.stderr))
				}
				for _, m := range errs {
					if !strings.Contains(c.stderr, m) {
						t.Errorf("%s adds %s: check says %q, create says %q", author, c.name, m, strings.TrimSpace(c.stderr))
					}
				}
			default:
				t.Errorf("%s adds %s: create exit %s: %s", author, c.name, c.code, c.stderr)
			}
		}
	}
	if allowed == 0 || refused == 0 {
		t.Errorf("the generated changes should have allowed and refused clusters: %d allowed, %d refused", allowed, refused)
	}
}

// TestCheckSameVerdictAsScaleAndDelete does the same for scale and delete: each author
// scales each cluster of the example (under a team with a per-cluster node limit and a CPU
// quota) and deletes it, once with `cluster scale` or `cluster delete` on the base, once
// as a change to the base for check. Refused by one means refused by the other, with the
// same messages; the CPU quota, which the server checks on create only, refuses neither.
func TestCheckSameVerdictAsScaleAndDelete(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "base")
	if err := copyDir(filepath.Join(root, "examples", "payments"), base); err != nil {
		t.Fatal(err)
	}
	teamFile := filepath.Join(base, "team.yaml")
	team, err := os.ReadFile(teamFile)
	if err != nil {
		t.Fatal(err)
	}
	limited := strings.Replace(string(team), "maxClusters: 20\n", "maxClusters: 20\n    maxNodesPerCluster: 5\n    maxCPUCores: \"20\"\n", 1)
	if err := os.WriteFile(teamFile, []byte(limited), 0o644); err != nil {
		t.Fatal(err)
	}
	authors := []string{"alice@example.com", "bob@example.com", "carol@example.com", "dave@example.com", "olivia@example.com"}
	clusters := []string{"bob-checkout", "carol-sandbox-1", "ledger-legacy"}
	allowed, refused := 0, 0
	compare := func(what, author, file string, cmd run, head string) {
		t.Helper()
		chk := butlerctlIn("check", "--manifests", head, "--base-manifests", base, "--as", author, "-o", "json")
		var report struct {
			Findings []struct{ File, Message, Severity, Rule string }
		}
		if err := json.Unmarshal([]byte(chk.stdout), &report); err != nil {
			t.Fatalf("%s by %s: check -o json: %v\n%s%s", what, author, err, chk.stdout, chk.stderr)
		}
		var errs []string
		unknown := false
		for _, f := range report.Findings {
			unknown = unknown || f.Rule == "author-unknown"
			if f.Severity == "error" && filepath.Base(f.File) == file {
				errs = append(errs, f.Message)
			}
		}
		switch {
		case cmd.code == 0:
			allowed++
			if len(errs) > 0 || unknown {
				t.Errorf("%s by %s: the command allows it, check refuses: %q", what, author, errs)
			}
		case cmd.code == 4 && unknown && strings.Contains(cmd.stderr, "role none (not a member)"):
			refused++
		case cmd.code == 4:
			refused++
			if len(errs) == 0 {
				t.Errorf("%s by %s: the command refuses it (%s), check allows it", what, author, strings.TrimSpace(cmd.stderr))
			}
			for _, m := range errs {
				if !strings.Contains(cmd.stderr, m) {
					t.Errorf("%s by %s: check says %q, the command says %q", what, author, m, strings.TrimSpace(cmd.stderr))
				}
			}
		default:
			t.Errorf("%s by %s: exit %d: %s", what, author, cmd.code, cmd.stderr)
		}
	}
	for _, author := range authors {
		for _, name := range clusters {
			file := name + ".yaml"
			orig, err := os.ReadFile(filepath.Join(base, "clusters", file))
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{4, 8} {
				what := fmt.Sprintf("scale %s to %d", name, workers)
				progress, head := filepath.Join(t.TempDir(), "progress"), filepath.Join(t.TempDir(), "head")
				for _, d := range []string{progress, head} {
					if err := copyDir(base, d); err != nil {
						t.Fatal(err)
					}
				}
				cmd := butlerctlIn("cluster", "scale", name, "--team", "payments", "--workers", fmt.Sprint(workers), "--as", author, "--manifests", progress)
				scaled := regexpReplicas.ReplaceAllString(string(orig), fmt.Sprintf("replicas: %d", workers))
				if err := os.WriteFile(filepath.Join(head, "clusters", file), []byte(scaled), 0o644); err != nil {
					t.Fatal(err)
				}
				compare(what, author, file, cmd, head)
			}
			progress, head := filepath.Join(t.TempDir(), "progress"), filepath.Join(t.TempDir(), "head")
			for _, d := range []string{progress, head} {
				if err := copyDir(base, d); err != nil {
					t.Fatal(err)
				}
			}
			cmd := butlerctlIn("cluster", "delete", name, "--team", "payments", "--yes", "--as", author, "--manifests", progress)
			if err := os.Remove(filepath.Join(head, "clusters", file)); err != nil {
				t.Fatal(err)
			}
			compare("delete "+name, author, file, cmd, head)
		}
	}
	t.Logf("%d allowed, %d refused", allowed, refused)
	if allowed == 0 || refused == 0 {
		t.Errorf("the generated changes should have allowed and refused requests: %d allowed, %d refused", allowed, refused)
	}
}

var regexpReplicas = regexp.MustCompile(`replicas: \d+`)
