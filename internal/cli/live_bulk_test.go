package cli_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// bulkWorkers is how many creates bulkclusters has in flight.
const bulkWorkers = 16

// cmdBulkClusters creates many TenantClusters fast, as the envtest admin, for scripts that
// need a team with thousands of them (kubectl would create them one at a time):
//
//	bulkclusters TEAM NAMESPACE COUNT
//
// The namespace is created when missing; the clusters are named TEAM-0000, TEAM-0001, …,
// labelled with the team, and reference it. The control plane's Reset removes them before
// the next script.
func cmdBulkClusters(env *testenv.Env) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: bulkclusters TEAM NAMESPACE COUNT")
		}
		team, ns := args[0], args[1]
		n, err := strconv.Atoi(args[2])
		if err != nil || n < 1 {
			ts.Fatalf("bulkclusters: %q is not a count", args[2])
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		err = env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			ts.Fatalf("bulkclusters: %v", err)
		}
		start := time.Now()
		names := make(chan string)
		errs := make(chan error, bulkWorkers)
		var wg sync.WaitGroup
		for w := 0; w < bulkWorkers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for name := range names {
					if err := env.Client.Create(ctx, bulkCluster(team, ns, name)); err != nil {
						errs <- fmt.Errorf("creating %s/%s: %w", ns, name, err)
						return
					}
				}
			}()
		}
	feed:
		for i := 0; i < n; i++ {
			select {
			case names <- fmt.Sprintf("%s-%04d", team, i):
			case err := <-errs:
				errs <- err
				break feed
			}
		}
		close(names)
		wg.Wait()
		close(errs)
		for err := range errs {
			ts.Fatalf("bulkclusters: %v", err)
		}
		ts.Logf("bulkclusters: %d TenantClusters in %s in %v", n, ns, time.Since(start).Round(time.Millisecond))
	}
}

func bulkCluster(team, ns, name string) *v1alpha1.TenantCluster {
	return &v1alpha1.TenantCluster{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: ns,
			Labels:    map[string]string{v1alpha1.LabelTeam: team},
		},
		Spec: v1alpha1.TenantClusterSpec{
			KubernetesVersion: "v1.31.0",
			TeamRef:           &v1alpha1.LocalObjectReference{Name: team},
			Workers:           v1alpha1.WorkersSpec{Replicas: 1},
		},
	}
}
