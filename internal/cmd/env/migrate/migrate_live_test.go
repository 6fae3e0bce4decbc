package migrate

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

const liveLegacy = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata: {name: edited, namespace: payments}
spec: {kubernetesVersion: v1.31.0, teamRef: {name: payments}, workers: {replicas: 1, machineTemplate: {cpu: 1, memory: 2Gi, diskSize: 20Gi}}}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata: {name: moved, namespace: payments}
spec: {kubernetesVersion: v1.31.0, teamRef: {name: payments}, workers: {replicas: 1, machineTemplate: {cpu: 1, memory: 2Gi, diskSize: 20Gi}}}
---
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata: {name: deleted, namespace: payments}
spec: {kubernetesVersion: v1.31.0, teamRef: {name: payments}, workers: {replicas: 1, machineTemplate: {cpu: 1, memory: 2Gi, diskSize: 20Gi}}}
`

// Live: clusters edited, moved and deleted by someone else between the plan and their
// patch. The server answers Conflict (or NotFound); the command reads each again and plans
// it again: the edited one still moves, the one moved elsewhere stays there, the deleted
// one is reported gone. Nothing is overwritten and no annotation is left.
func TestLiveConcurrentChanges(t *testing.T) {
	env := testenv.Start(t)
	ctx := context.Background()
	if err := env.ResetToExample(ctx); err != nil {
		t.Fatal(err)
	}
	if err := env.CreateYAML(ctx, []byte(liveLegacy)); err != nil {
		t.Fatal(err)
	}
	// Someone else, as the admin, right before the tool's first patch of each cluster.
	var mu sync.Mutex
	done := map[string]bool{}
	meddle := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		if done[name] {
			return
		}
		done[name] = true
		tc := &v1alpha1.TenantCluster{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "payments", Name: name}, tc); err != nil {
			t.Errorf("get %s: %v", name, err)
			return
		}
		var err error
		switch name {
		case "edited":
			if tc.Labels == nil {
				tc.Labels = map[string]string{}
			}
			tc.Labels["tier"] = "ledger"
			err = env.Client.Update(ctx, tc)
		case "moved":
			tc.Labels = map[string]string{v1alpha1.LabelEnvironment: "prod"}
			err = env.Client.Update(ctx, tc)
		case "deleted":
			err = env.Client.Delete(ctx, tc)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	hook := func(_ context.Context, c *v1alpha1.TenantCluster, _ string) (store.MigrateResult, error, bool) {
		meddle(c.Name)
		return store.MigrateResult{}, nil, false
	}
	ios, _, out, errOut := iostreams.Test()
	f := &factory.Factory{
		IOStreams: ios,
		Options:   &factory.GlobalOptions{Output: "json"},
		Now:       time.Now,
		NewStore: func(context.Context, *factory.Factory) (store.Store, error) {
			s, err := live.New(live.Options{Kubeconfig: env.Kubeconfig(testenv.Alice)})
			if err != nil {
				return nil, err
			}
			return &hookStore{Store: s, m: s, hook: hook}, nil
		},
	}
	cmd := NewCmd(f, nil)
	cmd.SetArgs([]string{"edited", "moved", "deleted", "ledger-legacy", "--team", "payments", "--environment", "dev", "--yes"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, errOut)
	}
	var got Output
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	status := map[string]Result{}
	for _, r := range got.Results {
		status[r.Cluster] = r
	}
	if r := status["edited"]; r.Status != StatusMigrated || r.Attempts != 2 {
		t.Errorf("edited: %+v", r)
	}
	if r := status["moved"]; r.Status != StatusSkipped || r.Message != `changed during the run, so planned again: in environment "prod"; pass --relabel to move it` {
		t.Errorf("moved: %+v", r)
	}
	if r := status["deleted"]; r.Status != StatusGone {
		t.Errorf("deleted: %+v", r)
	}
	if r := status["ledger-legacy"]; r.Status != StatusMigrated || r.Attempts != 1 {
		t.Errorf("ledger-legacy: %+v", r)
	}
	if got.Summary.Conflicts != 2 || got.Summary.Migrated != 2 || got.Summary.Gone != 1 {
		t.Errorf("summary %+v", got.Summary)
	}

	var list v1alpha1.TenantClusterList
	if err := env.Client.List(ctx, &list, client.InNamespace("payments")); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"edited": "dev", "moved": "prod", "ledger-legacy": "dev", "bob-checkout": "prod",
		"carol-sandbox-1": "dev", "carol-sandbox-2": "dev"}
	for _, c := range list.Items {
		if _, ok := c.Annotations[v1alpha1.AnnotationMigration]; ok {
			t.Errorf("%s keeps the migration annotation", c.Name)
		}
		if c.Labels[v1alpha1.LabelEnvironment] != want[c.Name] {
			t.Errorf("%s in %q, want %q", c.Name, c.Labels[v1alpha1.LabelEnvironment], want[c.Name])
		}
		if c.Name == "edited" && c.Labels["tier"] != "ledger" {
			t.Errorf("the concurrent edit was overwritten: %v", c.Labels)
		}
		delete(want, c.Name)
	}
	if len(want) != 0 {
		t.Errorf("missing %v", want)
	}
}
