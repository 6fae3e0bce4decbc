package run

import (
	"reflect"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestCILabels(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  map[string]string
		want map[string]string
	}{
		{"github pull request", map[string]string{"GITHUB_RUN_ID": "123", "GITHUB_REPOSITORY": "acme/shop", "GITHUB_REF": "refs/pull/42/merge"},
			map[string]string{LabelRun: "123", LabelRepository: "acme.shop", LabelPullRequest: "42"}},
		{"github push", map[string]string{"GITHUB_RUN_ID": "124", "GITHUB_REPOSITORY": "acme/shop", "GITHUB_REF": "refs/heads/main"},
			map[string]string{LabelRun: "124", LabelRepository: "acme.shop"}},
		{"gitlab merge request", map[string]string{"CI_PIPELINE_ID": "9", "CI_PROJECT_PATH": "group/sub/proj", "CI_MERGE_REQUEST_IID": "7"},
			map[string]string{LabelRun: "9", LabelRepository: "group.sub.proj", LabelPullRequest: "7"}},
		{"no CI", map[string]string{}, map[string]string{}},
		{"not a label value", map[string]string{"GITHUB_RUN_ID": "1", "GITHUB_REPOSITORY": "a repo with spaces"}, map[string]string{LabelRun: "1"}},
	} {
		if got := ciLabels(env(tt.env)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{},
		"--generate-name", "ci-", "--team", "payments", "--environment", "dev", "--ttl", "1h", "--on-failure", "keep", "--keep-for", "2h", "--", "make", "e2e")
	if r.Code != 0 || o == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if o.Name != "" || o.GenerateName != "ci-" || !reflect.DeepEqual(o.Command, []string{"make", "e2e"}) || o.OnFailure != OnFailureKeep || o.KeepFor.Hours() != 2 {
		t.Errorf("parsed %+v", o)
	}
	if o.Store == nil || o.Signals == nil || o.Getenv == nil {
		t.Errorf("completed %+v", o)
	}
	for _, args := range [][]string{
		{"ci", "--team", "payments", "--ttl", "1h"},                                          // no COMMAND
		{"ci", "--team", "payments", "--", "true"},                                           // no TTL
		{"ci", "--team", "payments", "--ttl", "1h", "--keep-for", "1h", "--", "true"},        // keep-for with delete
		{"ci", "--team", "payments", "--ttl", "1h", "--on-failure", "archive", "--", "true"}, // unknown
	} {
		if _, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{}, args...); r.Code != 2 {
			t.Errorf("%q: exit %d, want 2", args, r.Code)
		}
	}
}

// The preflight refuses before anything is written: carol owns 2 dev clusters, the cap.
func TestRunRefusedWritesNothing(t *testing.T) {
	s := storetest.Payments(t, "carol@example.com")
	before := len(s.Clusters)
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false,
		"--generate-name", "ci-", "--team", "payments", "--environment", "dev", "--ttl", "1h", "--", "true")
	if r.Code != 4 {
		t.Fatalf("exit %d (%v), want 4", r.Code, r.Err)
	}
	if len(s.Clusters) != before || r.Stdout != "" {
		t.Errorf("clusters %d -> %d; stdout %q", before, len(s.Clusters), r.Stdout)
	}
}

// On manifests a preflight that passes is a success (CI gates on it): exit 0, nothing
// written, COMMAND not run, and stderr says so.
func TestRunOfflinePassExitsZero(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	before := len(s.Clusters)
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false,
		"ci-ok", "--team", "payments", "--environment", "dev", "--ttl", "1h", "--", "true")
	if r.Code != 0 {
		t.Fatalf("exit %d (%v), want 0", r.Code, r.Err)
	}
	if len(s.Clusters) != before || r.Stdout != "" || !strings.Contains(r.Stderr, "nothing was created and true was not run") {
		t.Errorf("clusters %d -> %d; stdout %q; stderr %q", before, len(s.Clusters), r.Stdout, r.Stderr)
	}
}
