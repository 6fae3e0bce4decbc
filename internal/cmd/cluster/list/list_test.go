package list_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/clusterttl"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/list"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// pager serves the example's clusters one per page and notes, as each page is asked
// for, what stdout held by then.
type pager struct {
	*storetest.Store
	out      *bytes.Buffer
	selector string
	seen     []string
}

func (p *pager) PageClusters(_ context.Context, ns, selector string, fn func([]v1alpha1.TenantCluster, bool) error) error {
	p.selector = selector
	for _, c := range p.Clusters {
		if ns != "" && c.Namespace != ns {
			continue
		}
		p.seen = append(p.seen, p.out.String())
		if err := fn([]v1alpha1.TenantCluster{c}, false); err != nil {
			return err
		}
	}
	return nil
}

var _ store.ClusterPager = (*pager)(nil)

// newPager is the payments example with p as its live server's paged list.
func newPager(t *testing.T, out *bytes.Buffer) *pager {
	p := &pager{Store: storetest.Payments(t, "bob@example.com"), out: out}
	p.Live = &storetest.Server{Page: p.PageClusters}
	return p
}

func run(t *testing.T, tty bool, output string, args ...string) (*pager, string) {
	t.Helper()
	ios, _, out, _ := iostreams.Test()
	ios.SetTTY(false, tty, false)
	p := newPager(t, out)
	f := &factory.Factory{
		IOStreams: ios,
		Options:   &factory.GlobalOptions{Output: output},
		Now:       func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) },
		NewStore:  func(context.Context, *factory.Factory) (store.Store, error) { return p, nil },
	}
	cmd := list.NewCmd(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(p.seen) < 2 {
		t.Fatalf("the example has %d clusters; the test needs two pages or more", len(p.seen))
	}
	return p, out.String()
}

// On a terminal the rows of a page are printed before the next page is asked for, with
// one header.
func TestTerminalPrintsRowsAsPagesArrive(t *testing.T) {
	p, out := run(t, true, "table", "-A")
	for i, before := range p.seen {
		if got := strings.Count(before, "\n"); i > 0 && got != i+1 {
			t.Errorf("page %d asked for with %d lines printed, want %d (header and a row a page)", i+1, got, i+1)
		}
	}
	if n := strings.Count(out, "NAMESPACE"); n != 1 {
		t.Errorf("%d headers:\n%s", n, out)
	}
}

// Piped, and in every structured format, the output is one document at the end.
func TestPipedPrintsOnceAtTheEnd(t *testing.T) {
	for _, o := range []string{"table", "json"} {
		p, out := run(t, false, o, "-A")
		for i, before := range p.seen {
			if before != "" {
				t.Errorf("-o %s: page %d asked for after output %q", o, i+1, before)
			}
		}
		if out == "" {
			t.Errorf("-o %s: nothing printed", o)
		}
	}
}

// -l and --environment go to the server as one selector.
func TestSelectorGoesToTheServer(t *testing.T) {
	p, _ := run(t, false, "table", "-A", "-l", "a=b", "--environment", "dev")
	if want := "a=b," + v1alpha1.LabelEnvironment + "=dev"; p.selector != want {
		t.Errorf("selector %q, want %q", p.selector, want)
	}
}

// What the command parsed and completed, through runF: nothing is read.
func TestNewCmdCompletes(t *testing.T) {
	o := cmdtest.Completed(t, storetest.Payments(t, "bob@example.com"), list.NewCmd, factory.GlobalOptions{Namespace: "payments"}, "-l", "a=b", "--environment", "dev")
	if o.Selector != "a=b" || o.Environment != "dev" || o.Namespace != "payments" || o.Store == nil || o.Printer == nil || o.Now == nil {
		t.Errorf("parsed and completed %+v", o)
	}
}

// Through run over the worked example: the TTL column appears once a cluster has an
// expiry (cmdtest's clock: 2025-01-01T00:00:00Z), with the time left or expired.
func TestRunShowsTimeLeft(t *testing.T) {
	s := storetest.Payments(t, "bob@example.com")
	r := cmdtest.Run(t, s, cmdtest.Cmd(list.NewCmd), factory.GlobalOptions{}, "", false, "--team", "payments")
	if strings.Contains(r.Stdout, "TTL") {
		t.Errorf("a TTL column without expiries:\n%s", r.Stdout)
	}
	for i := range s.Clusters {
		c := &s.Clusters[i]
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		switch c.Name {
		case "carol-sandbox-1":
			c.Annotations[clusterttl.Annotation] = "2025-01-01T03:00:00Z"
		case "carol-sandbox-2":
			c.Annotations[clusterttl.Annotation] = "2024-12-31T00:00:00Z"
		}
	}
	r = cmdtest.Run(t, s, cmdtest.Cmd(list.NewCmd), factory.GlobalOptions{}, "", false, "--team", "payments")
	for _, re := range []string{`(?m)^NAME +TEAM +ENVIRONMENT +PHASE +VERSION +WORKERS +AGE +TTL$`, `(?m)^carol-sandbox-1 .* 3h$`, `(?m)^carol-sandbox-2 .* expired$`, `(?m)^bob-checkout .* -$`} {
		if !regexp.MustCompile(re).MatchString(r.Stdout) {
			t.Errorf("no %s in\n%s", re, r.Stdout)
		}
	}
}
