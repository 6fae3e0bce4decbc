//go:build unix

package kubeconfig

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

// contextsOf lists the contexts of a kubeconfig, failing t if it does not load.
func contextsOf(t *testing.T, path string) map[string]bool {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatalf("%s no longer loads: %v", path, err)
	}
	out := map[string]bool{}
	for n := range cfg.Contexts {
		out[n] = true
	}
	return out
}

// Twelve merges into one kubeconfig at the same time keep all twelve contexts (and the
// file's own): each takes the file's lock over its read and its write.
func TestConcurrentMergesKeepEveryContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(existing), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(clientcmd.RecommendedConfigPathEnvVar, "")
	grace := KubectlGrace
	KubectlGrace = 0 // for kubectl only; here the lock alone must keep every context
	t.Cleanup(func() { KubectlGrace = grace })
	const n = 12
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = MergeInto(path, []byte(tenant), Merge{Name: fmt.Sprintf("payments-%d", i)})
		}()
	}
	wg.Wait()
	got := contextsOf(t, path)
	for i := range n {
		name := fmt.Sprintf("payments-%d", i)
		if errs[i] != nil {
			t.Errorf("merge %s: %v", name, errs[i])
		} else if !got[name] {
			t.Errorf("context %s was merged but is missing", name)
		}
	}
	if !got["other"] || !got["kind"] {
		t.Errorf("the file's own contexts are gone: %v", got)
	}
	if m, _ := filepath.Glob(path + "*.lock"); len(m) > 0 {
		t.Errorf("locks left: %v", m)
	}
}

// kubectl config set-context in a loop and merges into the same kubeconfig at the same
// time lose nothing: both take FILE.lock (kubectl fails at once when it is taken, and is
// run again, as a user would).
func TestMergeAndKubectlTakeTurns(t *testing.T) {
	kubectl := filepath.Join(testenv.AssetsDir(), "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("no kubectl in %s (make testbin)", testenv.AssetsDir())
	}
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(existing), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(clientcmd.RecommendedConfigPathEnvVar, path)
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = MergeInto(path, []byte(tenant), Merge{Name: fmt.Sprintf("merged-%d", i)})
		}()
	}
	kerrs := make([]error, n)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range n {
			for try := 0; ; try++ {
				cmd := exec.Command(kubectl, "config", "set-context", fmt.Sprintf("kubectl-%d", i), "--cluster=kind", "--user=kind")
				cmd.Env = append(os.Environ(), "KUBECONFIG="+path)
				out, err := cmd.CombinedOutput()
				if err == nil {
					break
				}
				if !strings.Contains(string(out), ".lock") || try == 100 {
					kerrs[i] = fmt.Errorf("%v: %s", err, out)
					break
				}
			}
		}
	}()
	wg.Wait()
	got := contextsOf(t, path)
	for i := range n {
		for _, c := range []struct {
			name string
			err  error
		}{{fmt.Sprintf("merged-%d", i), errs[i]}, {fmt.Sprintf("kubectl-%d", i), kerrs[i]}} {
			if c.err != nil {
				t.Errorf("%s: %v", c.name, c.err)
			} else if !got[c.name] {
				t.Errorf("context %s was written but is missing", c.name)
			}
		}
	}
}

// With KUBECONFIG=a:b, a context of b's for another cluster is a conflict for a merge
// into a, as one in a itself would be (kubectl would take a's, shadowing b's); --force
// merges all the same.
func TestMergeSeesTheWholeKUBECONFIG(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(b, []byte(strings.ReplaceAll(existing, "name: other\n", "name: payments-bob\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(clientcmd.RecommendedConfigPathEnvVar, a+string(filepath.ListSeparator)+b)
	_, err := MergeInto(MergeTarget(""), []byte(tenant), Merge{Name: "payments-bob"})
	if err == nil || !strings.Contains(err.Error(), b+" (in KUBECONFIG) already has a cluster named \"payments-bob\" for another cluster") {
		t.Fatalf("got %v, want a conflict naming %s", err, b)
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Errorf("%s was written: %v", a, err)
	}
	if _, err := MergeInto(MergeTarget(""), []byte(tenant), Merge{Name: "payments-bob", Force: true}); err != nil {
		t.Fatal(err)
	}
	if !contextsOf(t, a)["payments-bob"] {
		t.Error("--force did not merge")
	}
	// A file outside KUBECONFIG (--file) is judged on its own.
	c := filepath.Join(dir, "c")
	if _, err := MergeInto(c, []byte(tenant), Merge{Name: "payments-bob"}); err != nil {
		t.Errorf("--file outside KUBECONFIG: %v", err)
	}
}

// --file names a device or a FIFO: refused, and its mode stays (as root, a chmod of
// /dev/null would break it for everyone).
func TestWriteFileRefusesDevicesAndFIFOs(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{os.DevNull, fifo} {
		before, _ := os.Stat(p)
		err := writeFile(p, []byte(tenant))
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("writeFile(%s) = %v, want a refusal", p, err)
		}
		if after, _ := os.Stat(p); after.Mode() != before.Mode() {
			t.Errorf("%s: mode changed from %v to %v", p, before.Mode(), after.Mode())
		}
	}
}
