package lookup

import (
	"context"
	"reflect"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/store/storetest"
)

func TestLikelyEmails(t *testing.T) {
	s := storetest.Payments(t, "olivia@example.com")
	for name, want := range map[string][]string{
		"carol":             {"carol@example.com"}, // a User's name and a local part
		"Bob":               {"bob@example.com"},   // without case
		"dave":              nil,
		"carol@example.com": nil, // an e-mail already
		"system:anonymous":  nil, // not a person's name
		"":                  nil,
	} {
		got := LikelyEmails(context.Background(), s, name)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
}
