package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://api.example.com:6443", "https://api.example.com:6443"},
		{"https://ci:s3cret@api.example.com:6443", "https://ci:xxxxx@api.example.com:6443"},
		{"https://ci:s3cret@api.example.com:6443/prefix?x=1", "https://ci:xxxxx@api.example.com:6443/prefix?x=1"},
		{"https://tok3n@api.example.com", "https://xxxxx@api.example.com"},
		{"HTTPS://tok3n@api.example.com", "HTTPS://xxxxx@api.example.com"},
		{"http://ci:p@ss:w@rd@10.0.0.1", "http://ci:xxxxx@10.0.0.1"},
		{"https://ci:s3/cr3t@api.example.com", "https://ci:xxxxx@api.example.com"},
		{"ci:s3cret@api.example.com:6443", "ci:xxxxx@api.example.com:6443"},
		{"api.example.com:6443", "api.example.com:6443"},
		{"https://ci:s3cret@\x1b[2Jhost", "https://ci:xxxxx@^[[2Jhost"},
		{"", ""},
	} {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestURLs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`Get "https://ci:***@api:6443/apis/x": dial tcp: refused`, `Get "https://ci:xxxxx@api:6443/apis/x": dial tcp: refused`},
		{"the API server at https://ci:s3cret@api:6443 did not answer", "the API server at https://ci:xxxxx@api:6443 did not answer"},
		{"login to https://tok3n@butler.example.com (file)", "login to https://xxxxx@butler.example.com (file)"},
		{"a https://a:b@x and http://c:d@y", "a https://a:xxxxx@x and http://c:xxxxx@y"},
		{"(https://a:b;c)@x)", "(https://a:xxxxx@x)"},
		{"repo ssh://git@github.com/org/repo", "repo ssh://git@github.com/org/repo"},
		{"ssh://git:s3cret@github.com/org/repo", "ssh://git:xxxxx@github.com/org/repo"},
		{"owner bob@example.com, https://api.example.com/x@y", "owner bob@example.com, https://api.example.com/x@y"},
		{"no url at all", "no url at all"},
		{"://@", "://xxxxx@"},
		{"trailing https://", "trailing https://"},
	} {
		if got := URLs(c.in); got != c.want {
			t.Errorf("URLs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// No password survives, wherever the URL stands in the text and whatever follows it.
func TestURLsHidePasswords(t *testing.T) {
	for _, pre := range []string{"", "x ", `"`, "(", "at: "} {
		for _, post := range []string{"", "/", "/api?a=b", `"`, " and more", ":6443", "\n"} {
			for _, scheme := range []string{"http", "https", "HTTPS", "ftp", "ssh"} {
				s := pre + scheme + "://ci:s3cret@host" + post
				if got := URLs(s); strings.Contains(got, "s3cret") {
					t.Errorf("URLs(%q) = %q", s, got)
				}
				if got := URL(scheme + "://ci:s3cret@host" + post); strings.Contains(got, "s3cret") {
					t.Errorf("URL(%q) = %q", s, got)
				}
			}
		}
	}
}
