package fastyaml_test

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// BenchmarkParse parses one cluster of the loader's benchmark tree with the fast path,
// BenchmarkYAML with yaml.v3's Decoder, as the loader did before it.
func BenchmarkParse(b *testing.B) {
	text := manifesttest.Cluster("team-01", "team-01-c00001", 1)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := parse(text); !ok {
			b.Fatal("declined")
		}
	}
}

func BenchmarkYAML(b *testing.B) {
	text := manifesttest.Cluster("team-01", "team-01-c00001", 1)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		var n yaml.Node
		if err := yaml.NewDecoder(strings.NewReader(text)).Decode(&n); err != nil {
			b.Fatal(err)
		}
	}
}
