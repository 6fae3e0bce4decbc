package cmdutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSetConfigKeysKeepsOtherKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	const before = "# mine\nas: bob@example.com # me\nmanifests:\n  - gitops\nteam: old\n"
	if err := os.WriteFile(path, []byte(before), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := SetConfigKeys(path, []string{"team", "environment"}, map[string]string{"team": "payments", "environment": "true"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	const want = "# mine\nas: bob@example.com # me\nmanifests:\n  - gitops\nteam: payments\nenvironment: \"true\"\n"
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", st.Mode())
	}
	keys, err := ReadConfigKeys(path)
	if err != nil || keys["environment"] != "true" || keys["team"] != "payments" {
		t.Errorf("%v %v", keys, err)
	}
	if err := SetConfigKeys(path, []string{"team", "environment"}, nil); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(path)
	if string(got) != "# mine\nas: bob@example.com # me\nmanifests:\n  - gitops\n" {
		t.Errorf("after clear:\n%s", got)
	}
}

func TestSetConfigKeysNewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "butler", "config.yaml")
	if err := SetConfigKeys(path, []string{"team"}, map[string]string{"team": "payments"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "team: payments\n" {
		t.Errorf("%q", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
}
