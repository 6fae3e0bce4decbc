package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// action is the part of action.yml a run of its check step reads.
type action struct {
	Inputs map[string]struct {
		Default string `json:"default"`
	} `json:"inputs"`
	Runs struct {
		Steps []struct {
			Name  string            `json:"name"`
			Shell string            `json:"shell"`
			Env   map[string]string `json:"env"`
			Run   string            `json:"run"`
		} `json:"steps"`
	} `json:"runs"`
}

var inputExpr = regexp.MustCompile(`^\$\{\{ inputs\.([a-z-]+) \}\}$`)

// TestActionCheckStep runs the GitHub Action's check step (action.yml) as a runner would:
// its inputs mapped into the environment as the step's env says, its script run by bash
// with -eo pipefail, butlerctl in RUNNER_TEMP. The release download and the Go build are
// the runner's; the step that uses them is the action's own logic, and is what this runs.
func TestActionCheckStep(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bin := filepath.Join(builtBinaries(t), "butlerctl")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(raw, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	step := -1
	for i, s := range a.Runs.Steps {
		if s.Name == "butlerctl check" {
			step = i
		}
	}
	if step < 0 {
		t.Fatal(`action.yml has no step named "butlerctl check"`)
	}
	check := a.Runs.Steps[step]

	// Every input reaches the step, and every variable the step maps is read by its script.
	mapped := map[string]bool{}
	for env, expr := range check.Env {
		m := inputExpr.FindStringSubmatch(expr)
		if m == nil {
			t.Errorf("env %s = %q: want ${{ inputs.NAME }} (inputs go through the environment)", env, expr)
			continue
		}
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("env %s names input %q, which action.yml does not declare", env, m[1])
		}
		mapped[m[1]] = true
		if !strings.Contains(check.Run, "$"+env) {
			t.Errorf("env %s is mapped but the script never reads it", env)
		}
	}
	for name := range a.Inputs {
		if !mapped[name] {
			t.Errorf("input %q is declared but does not reach the check step", name)
		}
	}
	if strings.Contains(check.Run, "${{") {
		t.Error("the check step's script has a ${{ }} expression: inputs must go through the environment")
	}

	repo := t.TempDir()
	if err := copyDir(filepath.Join(root, "examples", "payments"), filepath.Join(repo, "payments")); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=ci@example.com", "-c", "user.name=ci", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "base")

	temp := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(temp, "butlerctl")); err != nil {
		t.Fatal(err)
	}

	type result struct {
		code            int
		stdout, summary string
	}
	run := func(t *testing.T, inputs map[string]string) result {
		t.Helper()
		summary := filepath.Join(t.TempDir(), "summary.md")
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + repo, "RUNNER_TEMP=" + temp, "GITHUB_STEP_SUMMARY=" + summary, "GIT_CONFIG_NOSYSTEM=1"}
		for name, expr := range check.Env {
			in := inputExpr.FindStringSubmatch(expr)[1]
			v, ok := inputs[in]
			if !ok {
				v = a.Inputs[in].Default
			}
			env = append(env, name+"="+v)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", check.Run)
		cmd.Dir = repo
		cmd.Env = env
		var out strings.Builder
		cmd.Stdout = &out
		cmd.Stderr = &out
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		s, _ := os.ReadFile(summary)
		return result{code, out.String(), string(s)}
	}

	t.Run("state", func(t *testing.T) {
		// ledger-legacy has no environment label: in the tree's state, an error on its line.
		r := run(t, map[string]string{"manifests": "payments"})
		if r.code != 4 {
			t.Fatalf("exit %d, want 4:\n%s", r.code, r.stdout)
		}
		if !regexp.MustCompile(`(?m)^::error file=payments/clusters/ledger-legacy\.yaml,line=7,`).MatchString(r.stdout) {
			t.Errorf("want an error annotation on ledger-legacy.yaml line 7, got:\n%s", r.stdout)
		}
		if !strings.Contains(r.summary, "ledger-legacy") {
			t.Errorf("the job summary does not name the finding:\n%s", r.summary)
		}
	})

	// A change that leaves the tree as it was: the base's missing label is a warning.
	t.Run("change-unchanged", func(t *testing.T) {
		r := run(t, map[string]string{"manifests": "payments", "base": "HEAD", "author": "carol@example.com"})
		if r.code != 0 {
			t.Fatalf("exit %d, want 0:\n%s", r.code, r.stdout)
		}
		if !strings.Contains(r.stdout, "::warning file=payments/clusters/ledger-legacy.yaml") {
			t.Errorf("want a warning annotation on ledger-legacy.yaml, got:\n%s", r.stdout)
		}
	})

	t.Run("warnings-as-errors", func(t *testing.T) {
		for _, in := range []map[string]string{{"warnings-as-errors": "true"}, {"fail-on": "warning"}} {
			in["manifests"], in["base"], in["author"] = "payments", "HEAD", "carol@example.com"
			if r := run(t, in); r.code == 0 {
				t.Errorf("%v: exit 0 with a warning:\n%s", in, r.stdout)
			}
		}
	})

	// A pull request: Carol adds a third dev cluster, past her per-member cap.
	sandbox, err := os.ReadFile(filepath.Join(repo, "payments", "clusters", "carol-sandbox-2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	third := strings.Replace(string(sandbox), "name: carol-sandbox-2", "name: carol-sandbox-3", 1)
	if third == string(sandbox) {
		t.Fatal("carol-sandbox-2.yaml has no name line to change")
	}
	if err := os.WriteFile(filepath.Join(repo, "payments", "clusters", "carol-sandbox-3.yaml"), []byte(third), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "a third sandbox")

	t.Run("change-refused", func(t *testing.T) {
		sarif := filepath.Join(t.TempDir(), "check.sarif")
		r := run(t, map[string]string{
			"manifests":     "payments",
			"base":          "HEAD~1",
			"author":        "carol@example.com",
			"author-groups": "developers\nsre",
			"sarif-file":    sarif,
		})
		if r.code != 4 {
			t.Fatalf("exit %d, want 4 (refused):\n%s", r.code, r.stdout)
		}
		if !regexp.MustCompile(`(?m)^::error file=payments/clusters/carol-sandbox-3\.yaml,line=\d+`).MatchString(r.stdout) {
			t.Errorf("want an error annotation on the added file, got:\n%s", r.stdout)
		}
		if !strings.Contains(r.summary, "carol-sandbox-3") {
			t.Errorf("the job summary does not name the refused cluster:\n%s", r.summary)
		}
		raw, err := os.ReadFile(sarif)
		if err != nil {
			t.Fatalf("sarif-file was not written: %v", err)
		}
		var doc struct {
			Version string `json:"version"`
			Runs    []struct {
				Results []struct {
					RuleID string `json:"ruleId"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("sarif-file is not JSON: %v\n%s", err, raw)
		}
		if doc.Version != "2.1.0" || len(doc.Runs) != 1 || len(doc.Runs[0].Results) == 0 {
			t.Errorf("sarif-file: version %q, %d runs, want 2.1.0 with results:\n%s", doc.Version, len(doc.Runs), raw)
		}
	})

	t.Run("base-without-author", func(t *testing.T) {
		r := run(t, map[string]string{"manifests": "payments", "base": "HEAD~1"})
		if r.code != 2 || !strings.Contains(r.stdout, "--as") {
			t.Fatalf("a base without an author: exit %d, want 2 asking for --as:\n%s", r.code, r.stdout)
		}
	})
}
