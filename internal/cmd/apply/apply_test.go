package apply_test

import (
	"github.com/spf13/cobra"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/apply"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/apply/applyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func ctl(f *factory.Factory, runF func(*apply.Options) error) *cobra.Command {
	return apply.NewCmd(f, applyutil.Developer, runF)
}

func TestFlags(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	o, r := cmdtest.RunF(t, s, ctl, factory.GlobalOptions{Namespace: "payments"},
		"-f", "a.yaml", "-f", "dir", "-R", "-l", "tier=web", "--dry-run", "--force-conflicts")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if strings.Join(o.Files, ",") != "a.yaml,dir" || !o.Recursive || o.Selector != "tier=web" || o.Namespace != "payments" {
		t.Errorf("read options = %+v", o.ReadOptions)
	}
	if !o.DryRun.Client() || !o.ForceConflicts || o.FieldManager != "butlerctl" || o.Binary.Name != "butlerctl" {
		t.Errorf("dry run %q, force %v, field manager %q, binary %q", o.DryRun, o.ForceConflicts, o.FieldManager, o.Binary.Name)
	}
	for _, args := range [][]string{
		{},                              // -f is required
		{"-f", "a.yaml", "--dry-run=x"}, // not a mode
		{"-f", "-", "-f", "-"},          // stdin twice
		{"-f", "a.yaml", "--field-manager="},
	} {
		if _, r := cmdtest.RunF(t, s, ctl, factory.GlobalOptions{}, args...); r.Code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d (%v), want %d", args, r.Code, r.Err, cmdutil.ExitUsage)
		}
	}
}

// cluster is a TenantCluster document of team payments in env with replicas workers.
func cluster(name, env string, replicas int) string {
	return strings.NewReplacer("NAME", name, "ENV", env, "N", string(rune('0'+replicas))).Replace(`apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: NAME
  labels:
    butler.butlerlabs.dev/environment: ENV
spec:
  kubernetesVersion: v1.31.0
  teamRef:
    name: payments
  providerConfigRef:
    name: harvester-prod
    namespace: butler-system
  workers:
    replicas: N
    machineTemplate:
      cpu: 2
      memory: 2Gi
      diskSize: 50Gi
`)
}

func write(t *testing.T, docs ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(p, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A batch is judged as the server would admit its objects one after another: alice may
// have 2 clusters in dev, so of three new ones the third is refused, and then none is
// applied.
func TestBatchJudgedTogether(t *testing.T) {
	s := storetest.Payments(t, "alice@example.com")
	before := len(s.Clusters)
	in := write(t, cluster("a1", "dev", 1), cluster("a2", "dev", 1), cluster("a3", "dev", 1))
	r := cmdtest.Run(t, s, cmdtest.Cmd(ctl), factory.GlobalOptions{}, "", false, "-f", in)
	if r.Code != cmdutil.ExitDenied {
		t.Fatalf("exit %d (%v), want %d", r.Code, r.Err, cmdutil.ExitDenied)
	}
	if !strings.Contains(r.Msg(), "tenantcluster.butler.butlerlabs.dev/a3") || strings.Contains(r.Msg(), "/a2 ") ||
		!strings.Contains(r.Msg(), "refused 1 of 3") {
		t.Errorf("message:\n%s", r.Msg())
	}
	if len(s.Clusters) != before {
		t.Errorf("%d clusters stored, want %d: a refusal applies nothing", len(s.Clusters), before)
	}

	// Two fit, and both are created, in the team's namespace, with alice as creator.
	in = write(t, cluster("a1", "dev", 1), cluster("a2", "dev", 1))
	r = cmdtest.Run(t, s, cmdtest.Cmd(ctl), factory.GlobalOptions{}, "", false, "-f", in)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want := "tenantcluster.butler.butlerlabs.dev/a1 created (clusters/a1.yaml)\ntenantcluster.butler.butlerlabs.dev/a2 created (clusters/a2.yaml)\n"
	if r.Stdout != want {
		t.Errorf("stdout %q, want %q", r.Stdout, want)
	}
	c := find(s, "a2")
	if c == nil || c.Namespace != "payments" || c.Annotations[v1alpha1.AnnotationCreatorEmail] != "alice@example.com" {
		t.Errorf("a2 stored as %+v", c)
	}
}

// An update is the file merged over the cluster: what the file leaves out stays (the
// owner annotation, the creator), and the rules judge the result as an update.
func TestUpdateMergesOverTheCluster(t *testing.T) {
	s := storetest.Payments(t, "carol@example.com")
	s.Live = &storetest.Server{}
	in := write(t, cluster("carol-sandbox-1", "dev", 3))
	r := cmdtest.Run(t, s, cmdtest.Cmd(ctl), factory.GlobalOptions{Output: "name"}, "", false, "-f", in)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Stdout != "tenantcluster.butler.butlerlabs.dev/carol-sandbox-1\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	c := find(s, "carol-sandbox-1")
	if c.Spec.Workers.Replicas != 3 || c.Annotations[v1alpha1.AnnotationOwner] != "carol@example.com" ||
		c.Annotations[v1alpha1.AnnotationCreatorEmail] != "carol@example.com" {
		t.Errorf("stored: replicas %d, annotations %v", c.Spec.Workers.Replicas, c.Annotations)
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(ctl), factory.GlobalOptions{}, "", false, "-f", in)
	if r.Stdout != "tenantcluster.butler.butlerlabs.dev/carol-sandbox-1 unchanged\n" {
		t.Errorf("again: stdout %q (%v)", r.Stdout, r.Err)
	}

	// Dave is no member: changing the cluster is refused before the rules, nothing sent.
	s.ID.Username = "dave@example.com"
	r = cmdtest.Run(t, s, cmdtest.Cmd(ctl), factory.GlobalOptions{}, "", false, "-f", write(t, cluster("carol-sandbox-1", "dev", 1)))
	if r.Code != cmdutil.ExitDenied || !strings.Contains(r.Msg(), `may not change cluster "carol-sandbox-1"`) {
		t.Errorf("dave: exit %d: %v", r.Code, r.Err)
	}
	if find(s, "carol-sandbox-1").Spec.Workers.Replicas != 3 {
		t.Error("dave's apply changed the cluster")
	}
}

func find(s *storetest.Store, name string) *v1alpha1.TenantCluster {
	for i := range s.Clusters {
		if s.Clusters[i].Name == name {
			return &s.Clusters[i]
		}
	}
	return nil
}
