package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

// Temporary: keeps a seeded control plane up for manual experiments.
func TestZZHold(t *testing.T) {
	if os.Getenv("BUTLER_HOLD") == "" {
		t.Skip()
	}
	env := testenv.Start(t)
	ctx := context.Background()
	for i := 0; i < 6; i++ {
		seed(t, ctx, env, fmt.Sprintf("exp-%d", i), 1000)
	}
	os.WriteFile("/tmp/exp.kubeconfig.path", []byte(env.Kubeconfig("admin")), 0o644)
	fmt.Println("READY")
	time.Sleep(40 * time.Minute)
}
