package cli_test

import (
	"bytes"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const badTeam = "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata:\n  name: billing\nspec:\n  resourceLimits:\n    maxClusterz: 3\n"

// generatedCases are the bad inputs git cannot hold: special files, links, loops, sizes
// and standard input.
func generatedCases() []badCase {
	link := func(target string) func(*testing.T, string) bool {
		return func(t *testing.T, bad string) bool {
			mustDo(t, os.Symlink(target, filepath.Join(bad, filepath.Base(t.Name()))))
			return true
		}
	}
	return []badCase{
		{name: "dev-zero.yaml", setup: link("/dev/zero"), want: []string{`not a regular file \(it is a character device, through the symlink to /dev/zero\)`}},
		{name: "dev-urandom.yml", setup: link("/dev/urandom"), want: []string{"character device"}},
		{name: "dev-null.yaml", setup: link("/dev/null"), want: []string{"character device"}},
		{name: "fifo.yaml", setup: func(t *testing.T, bad string) bool {
			mustDo(t, syscall.Mkfifo(filepath.Join(bad, "fifo.yaml"), 0o644))
			return true
		}, want: []string{`not a regular file \(it is a FIFO\)`}},
		{name: "fifo-link.yaml", setup: func(t *testing.T, bad string) bool {
			mustDo(t, syscall.Mkfifo(filepath.Join(bad, "pipe"), 0o644))
			mustDo(t, os.Symlink("pipe", filepath.Join(bad, "fifo-link.yaml")))
			return true
		}, want: []string{`it is a FIFO, through the symlink to pipe`}},
		{name: "socket.yaml", setup: func(t *testing.T, bad string) bool {
			l, err := net.Listen("unix", filepath.Join(bad, "socket.yaml"))
			mustDo(t, err)
			t.Cleanup(func() { l.Close() })
			return true
		}, want: []string{`it is a socket`}},
		{name: "loop", setup: link("."), want: []string{"symlink loop"}},
		{name: "loop-up", setup: link("../.."), want: []string{"symlink loop"}},
		{name: "loop-files.yaml", setup: func(t *testing.T, bad string) bool {
			mustDo(t, os.Symlink("other.yaml", filepath.Join(bad, "loop-files.yaml")))
			mustDo(t, os.Symlink("loop-files.yaml", filepath.Join(bad, "other.yaml")))
			return true
		}, want: []string{"symlink loop"}},
		{name: "broken-link", setup: link("../nowhere"), want: []string{"broken symlink"}},
		{name: "broken-link.yaml", setup: link("missing.yaml"), want: []string{"broken symlink"}},
		{name: "linked-file.yaml", setup: func(t *testing.T, bad string) bool {
			outside := filepath.Join(t.TempDir(), "team.yaml")
			mustDo(t, os.WriteFile(outside, []byte(badTeam), 0o644))
			mustDo(t, os.Symlink(outside, filepath.Join(bad, "linked-file.yaml")))
			return true
		}, want: []string{`linked-file.yaml:7: Team "billing" \(document 1\): spec.resourceLimits.maxClusterz: unknown field`}},
		{name: "linked-folder", setup: func(t *testing.T, bad string) bool {
			outside := t.TempDir()
			mustDo(t, os.WriteFile(filepath.Join(outside, "team.yaml"), []byte(badTeam), 0o644))
			mustDo(t, os.Symlink(outside, filepath.Join(bad, "linked-folder")))
			return true
		}, want: []string{`linked-folder/team.yaml:7: .*maxClusterz: unknown field`}},
		{name: "unreadable.yaml", setup: func(t *testing.T, bad string) bool {
			if os.Geteuid() == 0 {
				t.Log("skipped: root reads files whatever their mode")
				return false
			}
			p := filepath.Join(bad, "unreadable.yaml")
			mustDo(t, os.WriteFile(p, []byte(badTeam), 0o000))
			return true
		}, want: []string{"permission denied"}},
		{name: "unreadable-dir", setup: func(t *testing.T, bad string) bool {
			if os.Geteuid() == 0 {
				t.Log("skipped: root reads folders whatever their mode")
				return false
			}
			mustDo(t, os.Mkdir(filepath.Join(bad, "unreadable-dir"), 0o000))
			t.Cleanup(func() { os.Chmod(filepath.Join(bad, "unreadable-dir"), 0o755) })
			return true
		}, want: []string{"permission denied"}},
		{name: "huge-50mb.yaml", setup: func(t *testing.T, bad string) bool {
			line := []byte("# " + strings.Repeat("x", 97) + "\n")
			mustDo(t, os.WriteFile(filepath.Join(bad, "huge-50mb.yaml"), bytes.Repeat(line, 50<<20/len(line)), 0o644))
			return true
		}, want: []string{`larger than 8 MiB \(the limit per manifest file\)`}},
		{name: "sparse-9mb.yaml", setup: func(t *testing.T, bad string) bool {
			f, err := os.Create(filepath.Join(bad, "sparse-9mb.yaml"))
			mustDo(t, err)
			mustDo(t, f.Truncate(9<<20))
			mustDo(t, f.Close())
			return true
		}, want: []string{"larger than 8 MiB"}},
		{name: "big-document.yaml", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  x: " + strings.Repeat("y", 2<<20) + "\n"),
			want: []string{`big-document.yaml:1: document 1: document larger than 1 MiB`}},
		// Just under the document limit, as dense as YAML gets: the memory probes. Refused
		// before any tree is built, by the bound read off the text (yaml.v3's documents) or
		// by the fast parser's count (block YAML).
		{name: "dense-flow.yaml", data: []byte("[" + strings.Repeat("a,", (1<<20-16)/2) + "a]\n"),
			want: []string{`:1: document 1: document too large \(its 1048564 bytes could hold 1048566 nodes, and a document may hold 131072\)`}},
		{name: "dense-block.yaml", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\nx:\n" + strings.Repeat("- \n", (1<<20-64)/3)),
			want: []string{`:1: document 1: document too large \(its 1048566 bytes could hold 699033 nodes, and a document may hold 131072\)`}},
		{name: "dense-plain.yaml", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\nx:\n" + strings.Repeat("- \n", (1<<20-64)/3)),
			want: []string{`:131067: document 1: document too large \(more than 131072 nodes\)`}},
		{name: "dense-under-bound.yaml", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\nx:\n" + strings.Repeat("-\n", (4<<17-40)/2)),
			want: []string{`:131066: document 1: document too large \(more than 131072 nodes\)`}},
		{name: "many-documents.yaml", setup: func(t *testing.T, bad string) bool {
			// 8 MiB of small foreign documents: only the run's node bound stops them.
			doc := "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: [" + strings.Repeat("a,", 200) + "a]\n"
			mustDo(t, os.WriteFile(filepath.Join(bad, "many-documents.yaml"), bytes.Repeat([]byte(doc), (8<<20-1)/len(doc)), 0o644))
			return true
		}, want: []string{"the manifests together are too large"}},
		{name: "stdin-garbage", stdin: randomBytes(1 << 16), want: []string{"<stdin>"}},
		{name: "stdin-empty", stdin: []byte{}, want: []string{"standard input was empty"}},
		{name: "stdin-huge", stdin: bytes.Repeat([]byte("# comment\n"), 1<<20), want: []string{`<stdin>: larger than 8 MiB`}},
		{name: "stdin-kind-miss", stdin: []byte("apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Teem\nmetadata: {name: x}\n"), want: []string{`<stdin>:2: Teem "x" \(document 1\): kind: unknown kind "Teem" .*did you mean "Team"`}},
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewSource(15)) // fixed: the same garbage every run
	r.Read(b)
	return b
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
