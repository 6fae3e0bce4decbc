package webhook_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Load: 20 clients at once, each creating and updating clusters of its own in one team's
// namespace, against the live control plane with the webhook enforcing. Every answer must
// be the expected one (each client's outcomes depend only on its own clusters: the team's
// aggregate limits are set far above what the run reaches), the server must see each
// request exactly once, and the whole run must finish in bounded time.
const (
	loadClients  = 20
	loadNS       = "load"
	loadTeam     = "load"
	loadDeadline = 90 * time.Second // the whole run, under -race on two cores
	loadSlowest  = 10 * time.Second // any one request: the webhook's timeoutSeconds
)

type loadStep struct {
	name string
	do   func(ctx context.Context, c client.Client, me string, i int) error
	want string // "" allowed
}

func TestLoadTwentyClients(t *testing.T) {
	env := testenv.Start(t, testenv.WithWebhook())
	ctx := context.Background()
	env.LoadExampleEnforced(t, func(ctx context.Context, c client.Client) error { return setupLoadTeam(ctx, c) })

	user := func(i int) string { return fmt.Sprintf("user-%02d@example.com", i) }
	name := func(i int, s string) string { return fmt.Sprintf("c%02d-%s", i, s) }
	create := func(suffix string, creator func(i int) string) func(context.Context, client.Client, string, int) error {
		return func(ctx context.Context, c client.Client, me string, i int) error {
			tc := loadCluster(name(i, suffix), "dev", creator(i), 2)
			return c.Create(ctx, tc)
		}
	}
	update := func(suffix string, f func(*v1alpha1.TenantCluster)) func(context.Context, client.Client, string, int) error {
		return func(ctx context.Context, c client.Client, me string, i int) error {
			tc := &v1alpha1.TenantCluster{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: loadNS, Name: name(i, suffix)}, tc); err != nil {
				return err
			}
			f(tc)
			return c.Update(ctx, tc)
		}
	}
	steps := []loadStep{
		{name: "create a", do: create("a", user)},
		{name: "create b", do: create("b", user)},
		{name: "create c over the member cap", do: create("c", user),
			want: `metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: user "{me}" already owns 2 cluster(s) in environment "dev"; env limits to 2 per member`},
		{name: "create claiming the next user", do: create("x", func(i int) string { return user((i + 1) % loadClients) }),
			want: `metadata.annotations[butler.butlerlabs.dev/creator-email]: Invalid value: "{next}": butler.butlerlabs.dev/creator-email must match the requesting identity "{me}"; environment "dev" enforces per-member caps and cannot accept an annotation claiming a different user`},
		{name: "scale a to 4", do: update("a", func(tc *v1alpha1.TenantCluster) { tc.Spec.Workers.Replicas = 4 })},
		{name: "scale a to 6 over the per-cluster limit", do: update("a", func(tc *v1alpha1.TenantCluster) { tc.Spec.Workers.Replicas = 6 }),
			want: `spec.workers.replicas: Forbidden: worker replicas (6) exceeds team "load" per-cluster node limit (5)`},
		{name: "move b to prod without the annotation", do: update("b", func(tc *v1alpha1.TenantCluster) { tc.Labels[v1alpha1.LabelEnvironment] = "prod" }),
			want: "metadata.labels[butler.butlerlabs.dev/environment]: Forbidden: env label changes require the \"butler.butlerlabs.dev/migration-operation\" annotation set to \"true\"; use `butleradm env migrate`"},
		{name: "change b's creator", do: update("b", func(tc *v1alpha1.TenantCluster) {
			tc.Annotations[v1alpha1.AnnotationCreatorEmail] = "someone@example.com"
		}),
			want: `metadata.annotations[butler.butlerlabs.dev/creator-email]: Forbidden: butler.butlerlabs.dev/creator-email is immutable; cannot change from "{me}" to "someone@example.com"`},
		{name: "move b to prod with the annotation", do: update("b", func(tc *v1alpha1.TenantCluster) {
			tc.Labels[v1alpha1.LabelEnvironment] = "prod"
			tc.Annotations[v1alpha1.AnnotationMigration] = "true"
		})},
	}

	type outcome struct {
		client, step int
		got          string
		err          error
		took         time.Duration
	}
	results := make(chan outcome, loadClients*len(steps))
	ctx, cancel := context.WithTimeout(ctx, loadDeadline)
	defer cancel()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < loadClients; i++ {
		cfg := env.Impersonating(user(i), "load:writers")
		c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(i int, c client.Client) {
			defer wg.Done()
			<-start
			for s, step := range steps {
				t0 := time.Now()
				err := step.do(ctx, c, user(i), i)
				o := outcome{client: i, step: s, took: time.Since(t0)}
				if err != nil {
					if _, msg, ok := testenv.DenialOf(err); ok {
						o.got = msg
					} else {
						o.err = err
					}
				}
				results <- o
			}
		}(i, c)
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	elapsed := time.Since(t0)
	close(results)

	var took []time.Duration
	for o := range results {
		took = append(took, o.took)
		step := steps[o.step]
		want := ""
		if step.want != "" {
			want = strings.NewReplacer("{me}", user(o.client), "{next}", user((o.client+1)%loadClients)).Replace(step.want)
		}
		switch {
		case o.err != nil:
			t.Errorf("client %d, %s: %v", o.client, step.name, o.err)
		case o.got != want:
			t.Errorf("client %d, %s:\n got: %q\nwant: %q", o.client, step.name, o.got, want)
		}
	}
	if len(took) != loadClients*len(steps) {
		t.Fatalf("%d answers, want %d", len(took), loadClients*len(steps))
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	p := func(q float64) time.Duration { return took[int(q*float64(len(took)-1))].Round(time.Millisecond) }
	t.Logf("%d clients x %d requests in %v: p50 %v, p95 %v, max %v", loadClients, len(steps), elapsed.Round(time.Millisecond), p(0.5), p(0.95), p(1))
	if elapsed > loadDeadline {
		t.Errorf("the run took %v, more than %v", elapsed, loadDeadline)
	}
	if slowest := took[len(took)-1]; slowest > loadSlowest {
		t.Errorf("slowest request took %v, more than %v", slowest, loadSlowest)
	}

	// Every request reached the webhook once (a dry-run-free write is reviewed once, and
	// the Gets are not reviewed); the server's log has one line per review.
	reviews := countReviews(t, env.WebhookLog(), func(user string) bool { return strings.HasPrefix(user, "user-") })
	if want := loadClients * len(steps); reviews != want {
		t.Errorf("the webhook logged %d reviews of the load's users, want %d", reviews, want)
	}

	// What is left is what was allowed: per client a (4 replicas, dev) and b (prod).
	var list v1alpha1.TenantClusterList
	if err := env.Client.List(ctx, &list, client.InNamespace(loadNS)); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2*loadClients {
		t.Errorf("%d clusters in %s, want %d", len(list.Items), loadNS, 2*loadClients)
	}
	for _, tc := range list.Items {
		env := tc.Labels[v1alpha1.LabelEnvironment]
		switch tc.Name[len(tc.Name)-1] {
		case 'a':
			if env != "dev" || tc.Spec.Workers.Replicas != 4 {
				t.Errorf("%s: %s, %d replicas", tc.Name, env, tc.Spec.Workers.Replicas)
			}
		case 'b':
			if env != "prod" || tc.Annotations[v1alpha1.AnnotationCreatorEmail] == "someone@example.com" {
				t.Errorf("%s: %s, creator %s", tc.Name, env, tc.Annotations[v1alpha1.AnnotationCreatorEmail])
			}
		}
	}
}

// countReviews counts the server's log lines for TenantCluster reviews by users match
// accepts.
func countReviews(t *testing.T, path string, match func(string) bool) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Webhook string `json:"webhook"`
			User    string `json:"user"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Webhook == webhook.NameTenantCluster && match(line.User) {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// setupLoadTeam makes the team "load" in its namespace: dev caps members at 2 clusters,
// prod has no caps, and the team's limits are far above what the run reaches except 5
// nodes per cluster. Group load:writers may write TenantClusters there.
func setupLoadTeam(ctx context.Context, c client.Client) error {
	return createTeam(ctx, c, &v1alpha1.Team{
		ObjectMeta: metav1.ObjectMeta{Name: loadTeam},
		Spec: v1alpha1.TeamSpec{
			DisplayName:    "Load",
			ResourceLimits: &v1alpha1.TeamResourceLimits{MaxClusters: i32(1000), MaxTotalNodes: i32(10000), MaxNodesPerCluster: i32(5)},
			Environments: []v1alpha1.EnvironmentSpec{
				{Name: "dev", Limits: &v1alpha1.EnvironmentLimits{MaxClustersPerMember: i32(2)}},
				{Name: "prod"},
			},
		},
	})
}

func loadCluster(name, env, creator string, replicas int32) *v1alpha1.TenantCluster {
	return teamCluster(loadTeam, name, env, creator, replicas)
}
