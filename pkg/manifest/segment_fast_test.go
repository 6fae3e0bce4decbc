package manifest

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/internal/fastyaml"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// TestLoadFastPathUnchanged decodes every manifest of the repository's examples and
// bad-input corpus, and a generated tree, with the fast parser and with yaml.v3 alone:
// the objects (lines included) and the errors must be the same.
func TestLoadFastPathUnchanged(t *testing.T) {
	tree, err := manifesttest.Generate(t.TempDir(), 2, 20)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, dir := range []string{"../../examples", "../../testdata/badinput", tree.Dir} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && manifestFile(d.Name()) {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 50 {
		t.Fatalf("only %d files found", len(files))
	}
	decodeWith := func(parse func(string, int) (*yaml.Node, error), file string, data []byte) ([]Object, string) {
		saved := fastParse
		fastParse = parse
		defer func() { fastParse = saved }()
		objs, err := Decode(file, data)
		if err != nil {
			return objs, err.Error()
		}
		return objs, ""
	}
	none := func(string, int) (*yaml.Node, error) { return nil, fastyaml.ErrDeclined }
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fast, fastErr := decodeWith(fastParse, f, data)
		slow, slowErr := decodeWith(none, f, data)
		if fastErr != slowErr {
			t.Errorf("%s: errors differ:\nfast path: %s\nyaml.v3:   %s", f, fastErr, slowErr)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: objects differ", f)
		}
	}
}
