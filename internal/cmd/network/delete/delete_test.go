package delete

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cmdtest"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func lab(phase v1alpha1.IPAllocationPhase) *storetest.Store {
	return &storetest.Store{
		NetworkPools: []v1alpha1.NetworkPool{{ObjectMeta: metav1.ObjectMeta{Name: "lab", Namespace: "butler-system"}}},
		IPAllocations: []v1alpha1.IPAllocation{{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-payments", Labels: map[string]string{v1alpha1.LabelNetworkPool: "lab"}},
			Status:     v1alpha1.IPAllocationStatus{Phase: phase},
		}},
	}
}

// What the command parsed and completed, through runF: -n defaults to butler-system.
func TestNewCmdCompletes(t *testing.T) {
	o, r := cmdtest.RunF(t, lab(""), NewCmd, factory.GlobalOptions{}, "lab", "--yes")
	if r.Code != 0 || o == nil || o.Name != "lab" || !o.Yes || o.Namespace != v1alpha1.DefaultProviderNamespace || o.Store == nil || o.Printer == nil {
		t.Fatalf("exit %d: %v; %+v", r.Code, r.Err, o)
	}
}

// The delete rule is checked first, so a pool with an Allocated IPAllocation is refused
// (exit 4) and nothing is deleted or asked; a released one is deleted.
func TestRun(t *testing.T) {
	s := lab(v1alpha1.IPAllocationPhaseAllocated)
	r := cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "lab")
	if r.Code != 4 || !strings.Contains(r.Msg(), `IPAllocation "web" in namespace "team-payments" is still in phase Allocated`) {
		t.Fatalf("exit %d: %v, want the Allocated refusal", r.Code, r.Err)
	}
	if len(s.Deleted) != 0 || len(s.NetworkPools) != 1 {
		t.Fatalf("deleted %v, pools left %d: a refused delete must delete nothing", s.Deleted, len(s.NetworkPools))
	}
	s = lab("Released")
	r = cmdtest.Run(t, s, cmdtest.Cmd(NewCmd), factory.GlobalOptions{}, "", false, "lab", "--yes")
	if r.Code != 0 || len(s.NetworkPools) != 0 || !strings.HasPrefix(r.Stdout, "networkpool.butler.butlerlabs.dev/lab deleted") {
		t.Errorf("exit %d: %v, %q", r.Code, r.Err, r.Stdout)
	}
}

// pools is a fake of network delete's Store and no more: one pool, its IPAllocations, and
// the pools deleted.
type pools struct {
	pool    v1alpha1.NetworkPool
	allocs  []v1alpha1.IPAllocation
	deleted []string
}

func (p *pools) GetNetworkPool(_ context.Context, ns, name string) (*v1alpha1.NetworkPool, error) {
	if ns != p.pool.Namespace || name != p.pool.Name {
		return nil, apierrors.NewNotFound(v1alpha1.Resource("networkpools"), name)
	}
	return p.pool.DeepCopy(), nil
}

func (p *pools) ListNetworkPools(context.Context, string) ([]v1alpha1.NetworkPool, error) {
	return []v1alpha1.NetworkPool{p.pool}, nil
}

func (p *pools) ListIPAllocations(_ context.Context, pool string) ([]v1alpha1.IPAllocation, error) {
	return p.allocs, nil
}

func (p *pools) DeleteNetworkPool(_ context.Context, ns, name string) (store.Result, error) {
	p.deleted = append(p.deleted, ns+"/"+name)
	return store.Result{Location: "networks/" + name + ".yaml"}, nil
}

func (p *pools) Kind() store.Kind { return store.Manifests }

// run alone, over a fake of the command's Store: a pool whose IPAllocations are all
// released is deleted, and the line names the file the delete went to; one with an
// Allocated IPAllocation is refused (exit 4) and nothing is deleted.
func TestRunOverItsStore(t *testing.T) {
	pool := v1alpha1.NetworkPool{ObjectMeta: metav1.ObjectMeta{Name: "lab", Namespace: v1alpha1.DefaultProviderNamespace}}
	alloc := func(phase v1alpha1.IPAllocationPhase) []v1alpha1.IPAllocation {
		return []v1alpha1.IPAllocation{{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-payments"}, Status: v1alpha1.IPAllocationStatus{Phase: phase}}}
	}

	released := &pools{pool: pool, allocs: alloc("Released")}
	deps, out, _ := cmdtest.Deps[Store](released, Spec, "")
	o := &Options{Yes: true}
	o.Deps, o.Name, o.Namespace = deps, "lab", v1alpha1.DefaultProviderNamespace
	if err := run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "networkpool.butler.butlerlabs.dev/lab deleted (networks/lab.yaml)\n"; got != want || len(released.deleted) != 1 {
		t.Errorf("stdout %q, deleted %v; want %q and butler-system/lab deleted", got, released.deleted, want)
	}

	allocated := &pools{pool: pool, allocs: alloc(v1alpha1.IPAllocationPhaseAllocated)}
	o.Deps, _, _ = cmdtest.Deps[Store](allocated, Spec, "")
	err := run(context.Background(), o)
	if cmdutil.CodeOf(err) != cmdutil.ExitDenied || len(allocated.deleted) != 0 {
		t.Errorf("err %v (exit %d), deleted %v; want the refusal (exit 4) and nothing deleted", err, cmdutil.CodeOf(err), allocated.deleted)
	}
}
