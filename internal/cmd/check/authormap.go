package check

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/gate"
)

// maxAuthorMapBytes bounds --author-map: a line per person.
const maxAuthorMapBytes = 1 << 20

// readAuthorMap reads --author-map: a YAML mapping of CI logins to the e-mails the Team
// objects use ("octocat: octo@example.com"). Keys compare case-insensitively, as logins
// do on GitHub and GitLab.
func readAuthorMap(path string) (map[string]string, error) {
	b, err := fileio.ReadFile(path, maxAuthorMapBytes)
	if err != nil {
		return nil, cmdutil.UsageError("--author-map: %v", err)
	}
	return parseAuthorMap(path, b)
}

// authorMap is --author-map: under --base, the base's copy of a map in the repository,
// since the map decides whose change it is (nil when the base has none: no login maps).
func (o *Options) authorMap(ctx context.Context) (map[string]string, error) {
	if o.Base == "" {
		return readAuthorMap(o.AuthorMap)
	}
	b, inRepo, err := gate.BaseCopy(ctx, "", o.Base, o.AuthorMap, maxAuthorMapBytes)
	switch {
	case err != nil:
		return nil, cmdutil.UsageError("--author-map %s: reading the base's copy (--base): %v", o.AuthorMap, err)
	case !inRepo:
		return readAuthorMap(o.AuthorMap)
	case b == nil:
		fmt.Fprintf(o.IO.ErrOut, "--author-map %s: not in the base (--base %s), so no login is mapped: the change does not choose whose it is\n", o.AuthorMap, o.Base)
		return nil, nil
	}
	if disk, err := fileio.ReadFile(o.AuthorMap, maxAuthorMapBytes); err != nil || !bytes.Equal(disk, b) {
		fmt.Fprintf(o.IO.ErrOut, "--author-map %s: the base's copy (--base %s) is read, not the working tree's: the change does not choose whose it is\n", o.AuthorMap, o.Base)
	}
	return parseAuthorMap(o.AuthorMap, b)
}

// parseAuthorMap reads the bytes of the author map at path.
func parseAuthorMap(path string, b []byte) (map[string]string, error) {
	var raw map[string]string
	if err := yaml.UnmarshalStrict(b, &raw); err != nil {
		return nil, cmdutil.UsageError("--author-map %s: not a mapping of logins to e-mails (login: e-mail): %v", path, err)
	}
	out := make(map[string]string, len(raw))
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.TrimSpace(raw[k])
		if !strings.Contains(v, "@") {
			return nil, cmdutil.UsageError("--author-map %s: %q maps to %q, which is not an e-mail", path, k, v)
		}
		key := strings.ToLower(strings.TrimSpace(k))
		if prev, dup := out[key]; dup && prev != v {
			return nil, cmdutil.UsageError("--author-map %s: %q is mapped twice (%q and %q)", path, k, prev, v)
		}
		out[key] = v
	}
	return out, nil
}

// mapAuthor is the e-mail author maps to: the login itself, or the login of a GitHub
// no-reply address ("123+octocat@users.noreply.github.com"), which is what CI knows of an
// author who hides their e-mail. ok is false when the map names neither.
func mapAuthor(m map[string]string, author string) (string, bool) {
	key := strings.ToLower(strings.TrimSpace(author))
	if v, ok := m[key]; ok {
		return v, true
	}
	if local, found := strings.CutSuffix(key, "@users.noreply.github.com"); found {
		if _, login, plus := strings.Cut(local, "+"); plus {
			local = login
		}
		if v, ok := m[local]; ok {
			return v, true
		}
	}
	return "", false
}

// describeMapping says how --as was mapped, for stderr.
func describeMapping(from, to string) string {
	return fmt.Sprintf("author %q is %q (--author-map)", from, to)
}
