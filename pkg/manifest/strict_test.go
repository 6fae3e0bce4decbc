package manifest

import (
	"errors"
	"strings"
	"testing"
)

// Strict mode lists a document of another API group as an error marked Strict, in the
// library's own words: the command layer says which flag turns it off. Without strict mode
// the document is kept.
func TestStrictRefusalIsMarked(t *testing.T) {
	files := []File{{Name: "others.yaml", Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n")}}
	if _, err := LoadFiles(files, Options{}); err != nil {
		t.Fatalf("without strict mode: %v", err)
	}
	_, err := LoadFiles(files, Options{Strict: true})
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("strict mode: %v, want a *DecodeError", err)
	}
	if !de.Strict || de.Field != "kind" || de.Msg != "apps/v1 Deployment is not a Butler or Steward kind: the tools do not check it" {
		t.Errorf("strict refusal %+v", de)
	}
	if strings.Contains(de.Error(), "--") {
		t.Errorf("the library names a flag: %v", de)
	}

	// A mistake in Butler's own group is refused whatever the mode, and not marked.
	files = []File{{Name: "t.yaml", Data: []byte("apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Teams\nmetadata: {name: a}\n")}}
	if _, err := LoadFiles(files, Options{}); !errors.As(err, &de) || de.Strict {
		t.Errorf("a misspelled Butler kind: %v, strict %v", err, de != nil && de.Strict)
	}
}
