package reap

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

// payments with expiries: carol-sandbox-1 expired, carol-sandbox-2 not yet, bob-checkout
// unreadable (cmdtest's clock is 2025-01-01T00:00:00Z).
func payments(t *testing.T) *storetest.Store {
	s := storetest.Payments(t, "olivia@example.com")
	for i := range s.Clusters {
		c := &s.Clusters[i]
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		switch c.Name {
		case "carol-sandbox-1":
			c.Annotations[clusterttl.Annotation] = "2024-12-31T23:00:00Z"
		case "carol-sandbox-2":
			c.Annotations[clusterttl.Annotation] = "2025-01-01T01:00:00Z"
		case "bob-checkout":
			c.Annotations[clusterttl.Annotation] = "soon"
		}
	}
	return s
}

func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, payments(t), NewCmd, factory.GlobalOptions{}, "-A", "--dry-run")
	if r.Code != 0 || o == nil || !o.AllNamespaces || !o.DryRun.Client() || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d (%v), options %+v", r.Code, r.Err, o)
	}
	if _, r := cmdtest.RunF(t, payments(t), NewCmd, factory.GlobalOptions{}, "-A", "--team", "payments"); r.Code != 2 {
		t.Errorf("-A and --team: exit %d, want 2", r.Code)
	}
}

// The expired cluster goes, the others stay; the unreadable expiry is reported (exit 1);
// a second run deletes nothing more.
func TestRunReaps(t *testing.T) {
	s := payments(t)
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "--team", "payments")
	if r.Code != 1 {
		t.Fatalf("exit %d (%v), want 1 for the unreadable expiry", r.Code, r.Err)
	}
	if len(s.Deleted) != 1 || s.Deleted[0] != "TenantCluster payments/carol-sandbox-1" {
		t.Errorf("deleted %q", s.Deleted)
	}
	for _, want := range []string{
		"tenantcluster.butler.butlerlabs.dev/carol-sandbox-1 deleted (payments, expired 2024-12-31T23:00:00Z)",
		"tenantcluster.butler.butlerlabs.dev/bob-checkout expiry unreadable (payments): TenantCluster payments/bob-checkout: metadata.annotations[butler.butlerlabs.dev/expires-at]",
		"Reaped 1 expired cluster(s) of 4 checked (0 thawed first); 1 not expired, 1 without expiry.",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.Stdout)
		}
	}
	cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "--team", "payments")
	if len(s.Deleted) != 1 {
		t.Errorf("second run deleted %q", s.Deleted)
	}
}

func TestRunDryRunDeletesNothing(t *testing.T) {
	s := payments(t)
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "-A", "--dry-run")
	if len(s.Deleted) != 0 || !strings.Contains(r.Stdout, "carol-sandbox-1 would be deleted") {
		t.Errorf("deleted %q; stdout %q", s.Deleted, r.Stdout)
	}
}

// A cluster extended after the listing was read is not deleted: reap reads each expired
// cluster again before it acts.
func TestExtendedSinceTheListingIsKept(t *testing.T) {
	s := payments(t)
	listed := append([]v1alpha1.TenantCluster(nil), s.Clusters...)
	for i := range s.Clusters { // the owner extends carol-sandbox-1 meanwhile
		if s.Clusters[i].Name == "carol-sandbox-1" {
			s.Clusters[i].Annotations = map[string]string{clusterttl.Annotation: "2025-01-01T02:00:00Z"}
		}
	}
	o := &Options{}
	o.Now = cmdtest.Now
	sum := reap(context.Background(), o, s, listed)
	if len(s.Deleted) != 0 || len(sum.Deleted) != 0 || sum.NotExpired != 2 {
		t.Errorf("deleted %q; summary %+v", s.Deleted, sum)
	}
}
