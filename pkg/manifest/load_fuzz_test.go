package manifest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// FuzzLoad feeds one input to Load three ways (a file in a directory reached through a
// symlink, a file named directly, standard input) and checks that it never panics, that
// the answers agree, that an accepted object has a kind the loader accounts for, and that
// a refusal names where the input came from. Seeds: fuzzSeeds and testdata/badinput.
func FuzzLoad(f *testing.F) {
	fuzzSeeds(func(b []byte) { f.Add(b, false) })
	corpus, _ := filepath.Glob("../../testdata/badinput/*.y*ml")
	for _, p := range corpus {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 {
			f.Add(b, true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, strict bool) {
		opts := Options{Strict: strict, MaxFileBytes: 1 << 20, MaxTotalBytes: 2 << 20}
		dir := t.TempDir()
		real := filepath.Join(dir, "real")
		if err := os.MkdirAll(real, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(real, "in.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "tree")
		if err := os.Symlink("real", link); err != nil {
			t.Fatal(err)
		}
		viaDir, errDir := LoadWith([]string{link}, nil, opts)
		viaFile, errFile := LoadWith([]string{filepath.Join(real, "in.yaml")}, nil, opts)
		viaStdin, errStdin := LoadWith([]string{Stdin}, bytes.NewReader(data), opts)
		if (errDir == nil) != (errFile == nil) {
			t.Fatalf("directory and file disagree: %v / %v", errDir, errFile)
		}
		if errDir == nil && len(viaDir.Objects) != len(viaFile.Objects) {
			t.Fatalf("directory read %d objects, file %d", len(viaDir.Objects), len(viaFile.Objects))
		}
		// Stdin refuses empty input on top: otherwise it must agree too.
		if yamldoc.HasContent(string(data)) && (errStdin == nil) != (errFile == nil) {
			t.Fatalf("stdin and file disagree: %v / %v", errStdin, errFile)
		}
		if errStdin == nil && errFile == nil && len(viaStdin.Objects) != len(viaFile.Objects) {
			t.Fatalf("stdin read %d objects, file %d", len(viaStdin.Objects), len(viaFile.Objects))
		}
		if errFile != nil {
			for _, e := range flatten(errFile) {
				if !strings.Contains(e.Error(), "in.yaml") {
					t.Fatalf("error does not name the file: %v", e)
				}
			}
			return
		}
		for _, o := range viaFile.Objects {
			group, exact := ourGroup(groupOf(o.APIVersion))
			if exact && o.Obj == nil {
				t.Fatalf("accepted %s %s without decoding it", o.APIVersion, o.Kind)
			}
			if exact && !looseKind(o.APIVersion, o.Kind) && schema.KindOf(o.Obj) == nil {
				t.Fatalf("accepted unknown kind %s in %s", o.Kind, group)
			}
			if strict && !exact {
				t.Fatalf("strict mode accepted %s %s", o.APIVersion, o.Kind)
			}
		}
	})
}

func groupOf(apiVersion string) string {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	if err == nil || errors.Is(err, nil) {
		return nil
	}
	return []error{err}
}

func fuzzSeeds(add func([]byte)) { manifesttest.FuzzSeeds(filepath.Join("..", ".."), add) }
