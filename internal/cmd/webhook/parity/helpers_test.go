package parity_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

// The test shares one control plane with Butler's webhooks registered and served by
// internal/webhook (testenv.WithWebhook).
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}
