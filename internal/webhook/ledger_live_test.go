package webhook_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

const (
	carolNS   = "carol"
	carolUser = "carol@example.com"
	// carolCapped is the refusal of a create past her dev environment's cap.
	carolCapped = `environment "dev" in team "carol" already has`
)

// carolCluster is a cluster of team carol, created by her, with no ProviderConfig (the
// environment caps apply without one).
func carolCluster(name, env string, replicas int32) *v1alpha1.TenantCluster {
	c := teamCluster(carolNS, name, env, carolUser, replicas)
	c.Spec.ProviderConfigRef = nil
	return c
}

// TestCreatesOfHeldNamesPassNoCap: carol, at her dev environment's cap of 2, "creates" her
// existing dev clusters again labelled prod (the API server refuses each
// as AlreadyExists, after the webhook admitted it), and then her third dev cluster is still
// refused. Then adversaries doing the same and writers creating new dev clusters race,
// and not one new dev cluster is stored.
func TestCreatesOfHeldNamesPassNoCap(t *testing.T) {
	env := testenv.Start(t, testenv.WithWebhook())
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	env.EnforceWebhook(false)
	if err := env.ResetToExample(ctx); err != nil {
		t.Fatal(err)
	}
	err := createTeam(ctx, env.Client, &v1alpha1.Team{ObjectMeta: metav1.ObjectMeta{Name: carolNS}, Spec: v1alpha1.TeamSpec{
		DisplayName: "Carol",
		Environments: []v1alpha1.EnvironmentSpec{
			{Name: "dev", Limits: &v1alpha1.EnvironmentLimits{MaxClusters: i32(2)}},
			{Name: "prod"},
		},
	}})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	for _, n := range []string{"a", "b"} {
		if err := env.Client.Create(ctx, carolCluster(n, "dev", 1)); err != nil {
			t.Fatalf("setup: %v", err)
		}
	}
	env.EnforceWebhook(true)
	c, err := client.New(env.Impersonating(carolUser, carolNS+":writers"), client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}

	if err := c.Create(ctx, carolCluster("a", "prod", 1)); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating her existing cluster a labelled prod: %v, want AlreadyExists", err)
	}
	if err := c.Create(ctx, carolCluster("c", "dev", 1)); err == nil || !strings.Contains(err.Error(), carolCapped) {
		t.Fatalf("her third dev cluster after the create of a held name: %v, want refused by the dev cap", err)
	}

	const adversaries, writers, rounds = 3, 3, 12
	var mu sync.Mutex
	stored, capped := 0, 0
	var other []string
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < adversaries+writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for k := 0; k < rounds && ctx.Err() == nil; k++ {
				if i < adversaries { // a held name, in a shape that counts for less in dev
					held := carolCluster([]string{"a", "b"}[k%2], "prod", int32(1+k%3))
					if err := c.Create(ctx, held); !apierrors.IsAlreadyExists(err) {
						mu.Lock()
						other = append(other, fmt.Sprintf("create of held %s: %v", held.Name, err))
						mu.Unlock()
					}
					continue
				}
				err := c.Create(ctx, carolCluster(fmt.Sprintf("w%d-%02d", i, k), "dev", 1))
				mu.Lock()
				switch {
				case err == nil:
					stored++
				case strings.Contains(err.Error(), carolCapped):
					capped++
				default:
					other = append(other, err.Error())
				}
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(other) > 0 {
		t.Errorf("writes failed otherwise than expected: %q", other)
	}
	var list v1alpha1.TenantClusterList
	if err := env.Client.List(ctx, &list, client.InNamespace(carolNS), client.MatchingLabels{v1alpha1.LabelEnvironment: "dev"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d new dev clusters stored, %d refused by the cap", stored, capped)
	if stored != 0 || len(list.Items) != 2 {
		t.Errorf("%d new dev clusters admitted; carol's dev environment holds %d clusters, its cap is 2", stored, len(list.Items))
	}
}
