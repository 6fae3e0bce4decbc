package providerutil

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// knownKeys are the Secret keys some provider reads, sorted. Credentials hold only these:
// any other key is most likely part of a value (a long line wrapped by an editor or a
// terminal, "...abc\ndef=ghi" reading as a key "def"), so it is refused by its line, and
// never shown, not even as a key name in a later message or in the Secret.
var knownKeys = func() []string {
	keys := []string{policy.TrustBundleKey} // Nutanix's optional Prism CA chain
	for _, p := range v1alpha1.ProviderTypes {
		for _, set := range policy.RequiredCredentialKeys(p) {
			for _, k := range set {
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
	}
	slices.Sort(keys)
	return keys
}()

func knownKey(k string) bool { return slices.Contains(knownKeys, k) }

func validKey(k string) bool { return len(validation.IsConfigMapKey(k)) == 0 }

func errUnknownKey(name string, line int) error {
	return cmdutil.UsageError("%s:%d: not a key any provider reads (%s); the key is not shown, as it may be part of a value wrapped onto a new line", name, line, strings.Join(knownKeys, ", "))
}

var envLineRE = regexp.MustCompile(`^(export\s+)?[-._a-zA-Z0-9]+=`)

// looksLikeEnv tells KEY=VALUE input from YAML by its first line that is not blank or a
// comment.
func looksLikeEnv(b []byte) bool {
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		return envLineRE.MatchString(l)
	}
	return false
}

// parseEnv reads KEY=VALUE lines as kubectl create secret --from-env-file does: a UTF-8
// byte order mark at the start dropped, leading white space dropped, blank lines and
// lines starting with # skipped, the key everything before the first "=" (a valid
// environment variable name, and a valid Secret key), the value everything after it,
// verbatim: no quotes removed, no white space trimmed, no escapes, one line. Where
// kubectl would take a line without "=" as a variable to read from the environment,
// this refuses it: in a credentials file it is a value wrapped onto a new line. And
// where kubectl allows an empty value, this refuses it: an empty credential is a mistake.
//
// Errors name the line, never its text: before the "=" there may be a value.
func parseEnv(name string, b []byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	for i, raw := range bytes.Split(b, []byte("\n")) {
		n := i + 1
		raw = bytes.TrimSuffix(raw, []byte("\r"))
		if !utf8.Valid(raw) {
			return nil, cmdutil.UsageError("%s:%d: not valid UTF-8 text", name, n)
		}
		line := string(raw)
		if i == 0 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		line = strings.TrimLeftFunc(line, unicode.IsSpace)
		if line == "" || line[0] == '#' {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		switch {
		case !ok || key == "":
			return nil, cmdutil.UsageError("%s:%d: want KEY=VALUE", name, n)
		case strings.HasPrefix(key, "export ") || strings.HasPrefix(key, "export\t"):
			return nil, cmdutil.UsageError("%s:%d: \"export\" is not part of the format (that of kubectl create secret --from-env-file): write KEY=VALUE", name, n)
		case len(validation.IsEnvVarName(key)) > 0 || !validKey(key):
			return nil, cmdutil.UsageError("%s:%d: the key is not a valid Secret key (letters, digits, '-', '_' and '.')", name, n)
		case !knownKey(key):
			return nil, errUnknownKey(name, n)
		}
		if _, dup := out[key]; dup {
			return nil, cmdutil.UsageError("%s:%d: key %q is given twice", name, n, key)
		}
		if value == "" {
			return nil, cmdutil.UsageError("%s:%d: key %q has an empty value", name, n, key)
		}
		out[key] = []byte(value)
	}
	return out, nil
}
