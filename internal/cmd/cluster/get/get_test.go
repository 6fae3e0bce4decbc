package get

import (
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

// What the command parsed and completed, through runF: run is not called, nothing is read.
func TestNewCmdCompletes(t *testing.T) {
	o := cmdtest.Completed(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{Namespace: "payments", Output: "wide"}, "bob-checkout", "--team", "payments")
	if o.Name != "bob-checkout" || o.Team != "payments" || o.Watch || o.Namespace != "payments" || o.Offline {
		t.Errorf("parsed %+v", o)
	}
	if o.IO == nil || o.Store == nil || o.Printer == nil || o.Now == nil || !o.Print.IsWide() {
		t.Errorf("completed %+v", o)
	}
}

// --watch on manifests is refused before anything is read: runF is never reached.
func TestWatchOnManifestsIsUsage(t *testing.T) {
	o, r := cmdtest.RunF(t, storetest.Payments(t, "bob@example.com"), NewCmd, factory.GlobalOptions{Manifests: []string{"payments"}}, "bob-checkout", "--watch")
	if r.Code != 2 || o != nil || !strings.Contains(r.Msg(), "--watch needs a live cluster") {
		t.Errorf("exit %d, runF reached %v: %v", r.Code, o != nil, r.Err)
	}
}

func TestGet(t *testing.T) {
	twice := storetest.Payments(t, "bob@example.com")
	other := twice.Clusters[0]
	other.Namespace = "elsewhere"
	twice.Clusters = append(twice.Clusters, other)

	for _, tc := range []struct {
		name string
		s    *storetest.Store
		out  string
		args []string
		code int
		want string // in stdout, or in the error when code is not 0
	}{
		{"by team", storetest.Payments(t, "bob@example.com"), "name", []string{"bob-checkout", "--team", "payments"}, 0, "/bob-checkout\n"},
		{"found anywhere when unique", storetest.Payments(t, "bob@example.com"), "", []string{"carol-sandbox-1"}, 0, "carol-sandbox-1"},
		{"not found in the team", storetest.Payments(t, "bob@example.com"), "", []string{"nope", "--team", "payments"}, 3, `tenant cluster "nope" not found in namespace "payments"`},
		{"not found anywhere", storetest.Payments(t, "bob@example.com"), "", []string{"nope"}, 3, `tenant cluster "nope" not found`},
		{"no such team", storetest.Payments(t, "bob@example.com"), "", []string{"bob-checkout", "--team", "nope"}, 3, "nope"},
		{"in several namespaces", twice, "", []string{other.Name}, 2, "exists in several namespaces: pass --team or -n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := cmdtest.Run(t, tc.s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{Output: tc.out}, "", false, tc.args...)
			if r.Code != tc.code {
				t.Fatalf("exit %d, want %d: %v", r.Code, tc.code, r.Err)
			}
			got := r.Stdout
			if tc.code != 0 {
				got = r.Msg()
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to hold %q", got, tc.want)
			}
		})
	}
}
