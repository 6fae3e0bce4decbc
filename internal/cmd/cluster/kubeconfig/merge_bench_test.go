package kubeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// clientcmdMerge is the baseline MergeInto was chosen over: load with clientcmd, add the
// entries, write the whole file back with clientcmd.
func clientcmdMerge(path string, tenant []byte, name string) error {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return err
	}
	t, err := clientcmd.Load(tenant)
	if err != nil {
		return err
	}
	c := t.Contexts[t.CurrentContext]
	cfg.Clusters[name] = t.Clusters[c.Cluster]
	cfg.AuthInfos[name] = t.AuthInfos[c.AuthInfo]
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	return clientcmd.WriteToFile(*cfg, path)
}

// lostLines counts the lines of before that are no longer in after, in order.
func lostLines(before, after string) int {
	lost, rest := 0, after
	for _, l := range strings.SplitAfter(before, "\n") {
		if l == "" {
			continue
		}
		if i := strings.Index(rest, l); i >= 0 {
			rest = rest[i+len(l):]
		} else {
			lost++
		}
	}
	return lost
}

// TestMergeAgainstClientcmd measures what each way keeps of the other entries.
func TestMergeAgainstClientcmd(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(existing), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := MergeInto(a, []byte(tenant), Merge{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := clientcmdMerge(b, []byte(tenant), "x"); err != nil {
		t.Fatal(err)
	}
	ga, _ := os.ReadFile(a)
	gb, _ := os.ReadFile(b)
	total := strings.Count(existing, "\n")
	la, lb := lostLines(existing, string(ga)), lostLines(existing, string(gb))
	t.Logf("lines of the %d-line file not kept in order: MergeInto %d, clientcmd.WriteToFile %d", total, la, lb)
	if la != 0 {
		t.Errorf("MergeInto lost %d line(s)", la)
	}
}

func BenchmarkMergeInto(b *testing.B) {
	path := filepath.Join(b.TempDir(), "config")
	for b.Loop() {
		_ = os.WriteFile(path, []byte(existing), 0o600)
		if _, err := MergeInto(path, []byte(tenant), Merge{Name: "x"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClientcmdWrite(b *testing.B) {
	path := filepath.Join(b.TempDir(), "config")
	for b.Loop() {
		_ = os.WriteFile(path, []byte(existing), 0o600)
		if err := clientcmdMerge(path, []byte(tenant), "x"); err != nil {
			b.Fatal(err)
		}
	}
}
