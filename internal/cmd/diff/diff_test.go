package diff

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/livediff"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
)

// What the command parsed and completed, through runF: the tree, the target, the field
// manager, -n, KUBECTL_EXTERNAL_DIFF, and a way to the live platform; nothing is read.
func TestNewCmdCompletes(t *testing.T) {
	t.Setenv(ExternalDiffEnv, "meld --x")
	s := storetest.Payments(t, "bob@example.com")
	o, r := cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{Manifests: []string{"tree"}, Namespace: "payments", Output: "json"},
		"--target", "clusters/mgmt-east", "--field-manager", "flux")
	if r.Code != 0 || o == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if strings.Join(o.Manifests, ",") != "tree" || o.Target != "clusters/mgmt-east" || o.FieldManager != "flux" ||
		o.Namespace != "payments" || o.ExternalDiff != "meld --x" || o.Connect == nil || len(o.Files) != 0 {
		t.Errorf("not completed: %+v", o)
	}
	o, r = cmdtest.RunF(t, s, NewCmd, factory.GlobalOptions{}, "-f", "a.yaml", "-f", "-")
	if r.Code != 0 || strings.Join(o.Files, ",") != "a.yaml,-" || o.FieldManager != DefaultFieldManager {
		t.Errorf("exit %d %v: %+v", r.Code, r.Err, o)
	}
}

// One source of objects, and --target only for a tree: usage errors, exit 2, before
// anything is read.
func TestValidate(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	for _, tc := range []struct {
		opts factory.GlobalOptions
		args []string
		msg  string
	}{
		{factory.GlobalOptions{Manifests: []string{"tree"}}, []string{"-f", "x"}, "-f and --manifests both name what to compare: give one"},
		{factory.GlobalOptions{}, nil, "nothing to compare: give -f FILE|DIR|- or --manifests DIR"},
		{factory.GlobalOptions{}, []string{"-f", "x", "--target", "t"}, "--target picks a management cluster of a tree: it goes with --manifests"},
		{factory.GlobalOptions{}, []string{"-f", "x", "--field-manager", ""}, "--field-manager: empty"},
	} {
		_, r := cmdtest.RunF(t, s, NewCmd, tc.opts, tc.args...)
		if r.Code != cmdutil.ExitUsage || r.Msg() != tc.msg {
			t.Errorf("%q: exit %d %q, want 2 %q", tc.args, r.Code, r.Msg(), tc.msg)
		}
	}
}

// Errors never exit 1, which says "differences": a failure exits 2 (kubectl adds one to
// its errors' codes); not found and denied keep theirs.
func TestExitOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{&cmdutil.SilentError{Code: 1}, 1},
		{errors.New("boom"), 2},
		{cmdutil.NotFoundError("x"), 3},
		{cmdutil.DeniedError(errors.New("no")), 4},
		{storeerr.BadInput(errors.New("bad")), 2},
	} {
		if got := cmdutil.CodeOf(exitOf(tc.err)); got != tc.want {
			t.Errorf("%v: exit %d, want %d", tc.err, got, tc.want)
		}
	}
}

// Manifests that do not decode are refused, naming the file, before the platform is
// opened: exit 2.
func TestRunRefusesBadFileBeforeConnecting(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: TenantCluster\nmetadata:\n  name: x\nspec:\n  nope: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	deps, out, _ := cmdtest.Deps[factory.NoStore](nil, Spec, "")
	o := &Options{Deps: deps, Files: []string{bad}, FieldManager: DefaultFieldManager,
		Connect: func(context.Context) (*rest.Config, func(), error) {
			t.Error("connected")
			return nil, nil, errors.New("no")
		}}
	err := exitOf(run(context.Background(), o))
	if cmdutil.CodeOf(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "bad.yaml") || !strings.Contains(err.Error(), "nope") {
		t.Errorf("err = %v (exit %d)", err, cmdutil.CodeOf(err))
	}
	if out.Len() != 0 {
		t.Errorf("printed %q", out)
	}
}

// The default output: diff -u -N over the added and changed objects, a section per
// target, then each drifted object named; differences reported.
func TestPrintUnified(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "butler.butlerlabs.dev", Version: "v1alpha1", Kind: "TenantCluster"}
	obj := func(replicas int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"kind": "TenantCluster", "metadata": map[string]any{"name": "web"},
			"spec": map[string]any{"replicas": replicas}}}
	}
	sections := []section{{target: "clusters/east", changes: []livediff.Change{
		{Kind: "TenantCluster", Name: "web", Namespace: "payments", Change: livediff.Changed, GVK: gvk, Live: obj(1), Merged: obj(2)},
		{Kind: "TenantCluster", Name: "console", Namespace: "payments", Change: livediff.Drift, GVK: gvk, Live: obj(1)},
	}}}
	deps, out, _ := cmdtest.Deps[factory.NoStore](nil, Spec, "")
	o := &Options{Deps: deps}
	differ, err := o.print(context.Background(), sections)
	if err != nil || !differ {
		t.Fatalf("differ %v, err %v", differ, err)
	}
	got := out.String()
	for _, want := range []string{"# target clusters/east\n", "-  replicas: 1\n+  replicas: 2\n",
		"/butler.butlerlabs.dev.v1alpha1.TenantCluster.payments.web\t",
		"drift: TenantCluster payments/console is live and not in the manifests\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TenantCluster.payments.console") {
		t.Errorf("a drifted object was diffed as if applying would delete it:\n%s", got)
	}
}
