package edit

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// What the command parsed and completed, through runF; bad values, and no flag off a
// terminal without $KUBE_EDITOR, are usage errors before anything is read.
func TestNewCmdCompletes(t *testing.T) {
	t.Setenv("KUBE_EDITOR", "")
	s := storetest.Payments(t, "bob@example.com")
	o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments",
		"--cpu", "8", "--memory", "32Gi", "--disk", "200Gi", "--kubernetes-version", "1.32.1", "-w", "4", "--dry-run")
	if r.Code != 0 || o == nil || o.Name != "bob-checkout" || o.Team != "payments" || o.Store == nil || o.Printer == nil || o.Editor == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
	c := o.Changes
	if *c.CPU != 8 || c.Memory.String() != "32Gi" || c.Disk.String() != "200Gi" || *c.KubernetesVersion != "v1.32.1" || *c.Workers != 4 || !o.DryRun.Client() {
		t.Errorf("changes %+v, dry run %q", c, o.DryRun)
	}
	for _, args := range [][]string{
		{"bob-checkout", "--team", "payments"}, // no flag, no terminal, no KUBE_EDITOR
		{"bob-checkout", "--team", "payments", "-w", "0"},
		{"bob-checkout", "--team", "payments", "--cpu", "0"},
		{"bob-checkout", "--team", "payments", "--memory", "lots"},
		{"bob-checkout", "--team", "payments", "--disk", "-1Gi"},
		{"bob-checkout", "--team", "payments", "--kubernetes-version", "latest"},
		{"bob-checkout", "--team", "payments", "--dry-run=maybe", "-w", "2"},
		{"bob-checkout", "-w", "2"},
	} {
		if o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, args...); r.Code != 2 || o != nil {
			t.Errorf("%v: exit %d: %v", args, r.Code, r.Err)
		}
	}
	t.Setenv("KUBE_EDITOR", "true")
	if o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments"); r.Code != 0 || o.Changes.Any() || !o.EditorSet {
		t.Errorf("KUBE_EDITOR set: exit %d: %v", r.Code, r.Err)
	}
}

// Flags: the fields given change and nothing else; a change past the team's
// maxNodesPerCluster is refused with the server's message (exit 4) and not written.
func TestRunFlags(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments", "--memory", "16Gi", "-w", "4")
	c := s.Clusters[0]
	if r.Code != 0 || !strings.Contains(r.Stdout, "bob-checkout edited") || c.Spec.Workers.Replicas != 4 ||
		!c.Spec.Workers.MachineTemplate.Memory.Equal(resource.MustParse("16Gi")) || c.Spec.Workers.MachineTemplate.CPU != 4 {
		t.Fatalf("exit %d: %v, %q; spec %+v", r.Code, r.Err, r.Stdout, c.Spec.Workers)
	}
	five := int32(5)
	s.Teams[0].Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxNodesPerCluster: &five}
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments", "-w", "6")
	if r.Code != 4 || !strings.Contains(r.Msg(), "per-cluster node limit (5)") || s.Clusters[0].Spec.Workers.Replicas != 4 {
		t.Errorf("over the limit: exit %d: %v", r.Code, r.Err)
	}
}

// completed is the Options of an edit with no flag, ready for run with an editor of the
// test's.
func completed(t *testing.T, s *storetest.Store, ed func(n int, file string) error) (*Options, *[]string) {
	t.Helper()
	t.Setenv("KUBE_EDITOR", "true")
	o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	var files []string
	o.Editor = func(_ context.Context, file string) error {
		files = append(files, file)
		return ed(len(files), file)
	}
	return o, &files
}

func rewrite(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := fileio.ReadFile(file, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("the editor's file has no %q:\n%s", old, b)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), old, new, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The editor's change is written, and the temporary file is gone afterwards.
func TestEditorWrites(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	o, files := completed(t, s, func(_ int, file string) error {
		rewrite(t, file, "cpu: 4", "cpu: 6")
		return nil
	})
	if err := run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := s.Clusters[0].Spec.Workers.MachineTemplate.CPU; got != 6 || len(*files) != 1 {
		t.Errorf("cpu %d after %d edits", got, len(*files))
	}
	if _, err := os.Stat((*files)[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary file is left: %v", err)
	}
}

// A refused edit is reopened with the rule's message at the top; saved again unchanged it
// ends with that refusal (exit 4), nothing written.
func TestEditorReopensOnRefusal(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	five := int32(5)
	s.Teams[0].Spec.ResourceLimits = &v1alpha1.TeamResourceLimits{MaxNodesPerCluster: &five}
	var reopened string
	o, files := completed(t, s, func(n int, file string) error {
		if n == 1 {
			rewrite(t, file, "replicas: 3", "replicas: 6")
			return nil
		}
		b, _ := fileio.ReadFile(file, 1<<20)
		reopened = string(b)
		return nil
	})
	err := run(context.Background(), o)
	if cmdutil.CodeOf(err) != cmdutil.ExitDenied || len(*files) != 2 || s.Clusters[0].Spec.Workers.Replicas != 3 {
		t.Fatalf("err %v (exit %d) after %d edits; replicas %d", err, cmdutil.CodeOf(err), len(*files), s.Clusters[0].Spec.Workers.Replicas)
	}
	if !strings.Contains(reopened, "\n# spec.workers.replicas: Forbidden: worker replicas (6) exceeds team \"payments\" per-cluster node limit (5)\n") ||
		strings.Count(reopened, "# Please edit the object below") != 1 || !strings.Contains(reopened, "replicas: 6") {
		t.Errorf("reopened:\n%s", reopened)
	}
}

// A cluster changed while the editor was open is a conflict: nothing is written, and the
// message says so.
func TestEditorConflict(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	o, _ := completed(t, s, func(_ int, file string) error {
		s.Clusters[0].ResourceVersion += "1" // someone else wrote meanwhile
		rewrite(t, file, "cpu: 4", "cpu: 6")
		return nil
	})
	err := run(context.Background(), o)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "bob-checkout changed since it was read") || s.Clusters[0].Spec.Workers.MachineTemplate.CPU != 4 {
		t.Errorf("err %v; cpu %d", err, s.Clusters[0].Spec.Workers.MachineTemplate.CPU)
	}
}

// Closed unchanged, the edit is cancelled; an edit of the labels is refused as bad input
// and reopened.
func TestEditorCancelAndMetadata(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	o, files := completed(t, s, func(int, string) error { return nil })
	if err := run(context.Background(), o); err != nil || len(*files) != 1 {
		t.Errorf("unchanged: %v after %d edits", err, len(*files))
	}
	o, files = completed(t, s, func(_ int, file string) error {
		b, _ := fileio.ReadFile(file, 1<<20)
		if !strings.Contains(string(b), "labels: changed") {
			rewrite(t, file, "butler.butlerlabs.dev/environment: prod", "butler.butlerlabs.dev/environment: dev # labels: changed")
		}
		return nil
	})
	err := run(context.Background(), o)
	if cmdutil.CodeOf(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "metadata.labels changed, and cluster edit changes the spec only") || len(*files) != 2 {
		t.Errorf("labels: %v (exit %d) after %d edits", err, cmdutil.CodeOf(err), len(*files))
	}
}
