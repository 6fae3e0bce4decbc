package live_test

import (
	"testing"

	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/store/live"
)

// The server a live store names (in messages, the impersonation warning, where a write
// went) carries no password from its URL.
func TestHostRedacted(t *testing.T) {
	s, err := live.NewForConfig(&rest.Config{Host: "https://ci:s3cret@api.example.com:6443"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Host(); got != "https://ci:xxxxx@api.example.com:6443" {
		t.Errorf("Host() = %q", got)
	}
}
