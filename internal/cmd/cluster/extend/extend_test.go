package extend

import (
	"context"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments", "--ttl", "3h")
	if r.Code != 0 || o == nil {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if o.Name != "bob-checkout" || o.Team != "payments" || o.TTL.Hours() != 3 || o.Store == nil || o.Printer == nil || o.Now == nil {
		t.Errorf("parsed and completed %+v", o)
	}
	if _, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments"); r.Code != 2 {
		t.Errorf("without --ttl: exit %d, want 2", r.Code)
	}
	for _, ttl := range []string{"721h", "87600h"} { // past 30 days: a standing cluster, not a throwaway one
		if _, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments", "--ttl", ttl); r.Code != 2 || r.Err == nil || !strings.Contains(r.Err.Error(), "longer than 720h0m0s") {
			t.Errorf("--ttl %s: exit %d (%v), want 2 saying the bound", ttl, r.Code, r.Err)
		}
	}
	if _, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{}, "bob-checkout", "--team", "payments", "--ttl", "720h"); r.Code != 0 {
		t.Errorf("--ttl 720h: exit %d (%v), want 0", r.Code, r.Err)
	}
}

// live is Payments with a server that records the annotation it is asked to write.
func live(t *testing.T, as string) (*storetest.Store, *[]string) {
	s := storetest.Payments(t, as)
	var writes []string
	s.Live = &storetest.Server{Annotate: func(_ context.Context, c *v1alpha1.TenantCluster, k, v string) (*v1alpha1.TenantCluster, error) {
		writes = append(writes, c.Name+" "+k+"="+v)
		out := c.DeepCopy()
		out.Annotations[k] = v
		return out, nil
	}}
	return s, &writes
}

// The expiry is now (2025-01-01T00:00:00Z in cmdtest) plus --ttl, one write.
func TestRunExtends(t *testing.T) {
	s, writes := live(t, "bob@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments", "--ttl", "6h")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if len(*writes) != 1 || (*writes)[0] != "bob-checkout "+clusterttl.Annotation+"=2025-01-01T06:00:00Z" {
		t.Errorf("writes %q", *writes)
	}
	if !strings.Contains(r.Stdout, "extended: expires 2025-01-01T06:00:00Z (in 6h0m0s)") {
		t.Errorf("stdout %q", r.Stdout)
	}
}

// A viewer is refused before anything is sent (exit 4); offline there is no server (exit 2).
func TestRunRefuses(t *testing.T) {
	s, writes := live(t, "dave@example.com")
	if r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments", "--ttl", "6h"); r.Code != 4 {
		t.Errorf("viewer: exit %d (%v), want 4", r.Code, r.Err)
	}
	if len(*writes) != 0 {
		t.Errorf("writes %q", *writes)
	}
	if r := cmdtest.Run(t, storetest.Payments(t, "bob@example.com"), cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "bob-checkout", "--team", "payments", "--ttl", "6h"); r.Code != 2 {
		t.Errorf("offline: exit %d (%v), want 2", r.Code, r.Err)
	}
}
