package webhook_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/internal/webhook"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

const (
	capNS     = "cap"
	capWriter = "cap-writer@example.com"
)

// setupCapTeam makes team "cap" in its namespace with a cap of maxClusters and the given
// number of clusters already there, writable by group cap:writers.
func setupCapTeam(ctx context.Context, c client.Client, maxClusters int32, existing int) error {
	err := createTeam(ctx, c, &v1alpha1.Team{
		ObjectMeta: metav1.ObjectMeta{Name: capNS},
		Spec: v1alpha1.TeamSpec{
			DisplayName:    "Cap",
			ResourceLimits: &v1alpha1.TeamResourceLimits{MaxClusters: i32(maxClusters)},
			Environments:   []v1alpha1.EnvironmentSpec{{Name: "prod"}},
		},
	})
	if err != nil {
		return err
	}
	for i := 0; i < existing; i++ {
		if err := c.Create(ctx, capCluster(fmt.Sprintf("old-%d", i))); err != nil {
			return err
		}
	}
	return nil
}

func capCluster(name string) *v1alpha1.TenantCluster {
	return teamCluster(capNS, name, "prod", capWriter, 1)
}

// createAll sends creates of names at once and sorts the outcomes: admitted, refused by
// the cap (the team-max-clusters message), anything else.
func createAll(ctx context.Context, t *testing.T, c client.Client, names []string, opts ...client.CreateOption) (admitted, capped int, other []string) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			err := c.Create(ctx, capCluster(n), opts...)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				admitted++
			case strings.Contains(err.Error(), `denied the request: spec: Forbidden: team "cap" already has`):
				capped++
			default:
				other = append(other, err.Error())
			}
		}()
	}
	close(start)
	wg.Wait()
	return admitted, capped, other
}

// TestConcurrentCreatesPassNoCap: with room for 5 clusters, 16 creates sent at once are
// admitted exactly 5 times: the webhook decides a namespace's reviews one at a time and
// counts what it admitted before its cache shows it. Dry runs before them reserve nothing.
func TestConcurrentCreatesPassNoCap(t *testing.T) {
	env := testenv.Start(t, testenv.WithWebhook())
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	env.EnforceWebhook(false)
	if err := env.ResetToExample(ctx); err != nil {
		t.Fatal(err)
	}
	const capacity, existing, writers = 7, 2, 16
	if err := setupCapTeam(ctx, env.Client, capacity, existing); err != nil {
		t.Fatalf("setup: %v", err)
	}
	env.EnforceWebhook(true)
	c, err := client.New(env.Impersonating(capWriter, "cap:writers"), client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	names := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s-%02d", prefix, i)
		}
		return out
	}

	room := capacity - existing
	if a, capped, other := createAll(ctx, t, c, names("dry", room), client.DryRunAll); a != room || capped != 0 || len(other) != 0 {
		t.Fatalf("%d dry-run creates with room for %d: %d admitted, %d capped, others %q", room, room, a, capped, other)
	}
	a, capped, other := createAll(ctx, t, c, names("new", writers))
	if len(other) != 0 {
		t.Fatalf("creates failed otherwise than on the cap: %q", other)
	}
	if a != room || capped != writers-room {
		t.Errorf("%d creates at once with room for %d: %d admitted, %d refused by the cap; want exactly %d admitted", writers, room, a, capped, room)
	}
	var list v1alpha1.TenantClusterList
	if err := env.Client.List(ctx, &list, client.InNamespace(capNS)); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != capacity {
		t.Errorf("namespace %s holds %d clusters, team cap is %d", capNS, len(list.Items), capacity)
	}
}

// TestFailoverAdmitsNoClusterPastTheCap: two elected replicas behind one address that
// follows the Lease (as the bundle's Service follows the leader's label), writers racing
// for the last places under a cap, and the leader SIGKILLed with a review in flight once
// the race has started. Writers retry what the outage refused, so in the end every place
// is taken, and exactly: the old leader's admissions are stored before the new leader
// lists the clusters and decides.
func TestFailoverAdmitsNoClusterPastTheCap(t *testing.T) {
	env := testenv.Start(t, testenv.WithWebhook())
	ctx, cancel := context.WithTimeout(context.Background(), haDeadline)
	defer cancel()
	env.EnforceWebhook(false)
	if err := env.ResetToExample(ctx); err != nil {
		t.Fatal(err)
	}
	const capacity, existing, writers = 12, 2, 8
	if err := setupCapTeam(ctx, env.Client, capacity, existing); err != nil {
		t.Fatalf("setup: %v", err)
	}
	backends, lb := startPair(ctx, t, env, capNS)
	c, err := client.New(env.Impersonating(capWriter, "cap:writers"), client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		err := c.Create(ctx, capCluster("probe"), client.DryRunAll)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook never answered: %v", err)
		}
	}

	var mu sync.Mutex
	admitted, outages, killed := 0, 0, -1
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; ctx.Err() == nil; {
				err := c.Create(ctx, capCluster(fmt.Sprintf("w%d-%02d", w, k)))
				mu.Lock()
				switch {
				case err == nil:
					admitted++
					k++
					if admitted == 2 {
						lb.armTrip(func(i int) {
							backends[i].kill()
							lb.markDead(i)
							killed = i
						})
					}
				case strings.Contains(err.Error(), `denied the request: spec: Forbidden: team "cap" already has`):
					mu.Unlock()
					return
				case strings.Contains(err.Error(), "failed calling webhook") || strings.Contains(err.Error(), webhook.ErrNotLeader.Error()):
					outages++ // the same name again: it was not stored
				default:
					mu.Unlock()
					t.Errorf("writer %d: %v", w, err)
					return
				}
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if killed < 0 {
		t.Fatal("the leader was never killed")
	}
	var list v1alpha1.TenantClusterList
	if err := env.Client.List(ctx, &list, client.InNamespace(capNS)); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed backend %d; %d admitted, %d writes refused by the failover", killed, admitted, outages)
	if admitted != capacity-existing || len(list.Items) != capacity {
		t.Errorf("%d admitted, namespace holds %d clusters: want exactly %d admitted, %d held", admitted, len(list.Items), capacity-existing, capacity)
	}
	if outages == 0 {
		t.Error("no write met the failover")
	}
}

// registerFor registers the bundle's TenantCluster webhook (failurePolicy Fail, checked) at
// url, under a name of its own and for namespace ns only, and removes it after the test.
func registerFor(ctx context.Context, t *testing.T, env *testenv.Env, ns, url string, caBundle []byte) {
	t.Helper()
	var hook admissionregistrationv1.ValidatingWebhook
	for _, h := range webhook.Configuration(testenv.WebhookInstall).Webhooks {
		if h.Name == webhook.NameTenantCluster {
			hook = h
		}
	}
	if hook.FailurePolicy == nil || *hook.FailurePolicy != admissionregistrationv1.Fail {
		t.Fatalf("the bundle's TenantCluster webhook is not fail-closed: %+v", hook.FailurePolicy)
	}
	hook.Name = ns + "." + webhook.NameTenantCluster
	hook.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle}
	hook.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "butler-webhook-" + ns + "-test"},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{hook},
	}
	if err := env.Client.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Client.Delete(context.Background(), vwc); err != nil {
			t.Errorf("removing the webhook configuration: %v", err)
		}
	})
}
