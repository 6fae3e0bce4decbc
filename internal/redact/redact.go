// Package redact keeps the credentials a URL may carry (https://user:password@host) out of
// what the tools print. A kubeconfig's server, butler-cli's login server and the errors
// that quote them may hold them; secrets are never printed, not even in errors.
package redact

import (
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Mask is what a redacted password (or a lone http(s) userinfo) shows as.
const Mask = "xxxxx"

// URL is a server's URL ready to print: its credentials redacted as URLs redacts them, and
// the rest made inert. A URL without a scheme (client-go takes "host:6443") is read as one
// whose scheme is left out. Its userinfo is all before the last "@" ahead of a query or
// fragment: a server's path has none, and a password a kubeconfig holds unencoded may
// have a "/" (so no client could parse it, and an error quotes it whole).
func URL(raw string) string {
	start, sch := 0, ""
	if k := strings.Index(raw, "://"); k >= 0 {
		start, sch = k+len("://"), scheme(raw[:k])
	}
	end := len(raw)
	if n := strings.IndexAny(raw[start:], "?#"); n >= 0 {
		end = start + n
	}
	return inert.Text(userinfo(raw, sch, start, end))
}

// URLs is s with the credentials of every URL in it redacted: a password shows as Mask,
// the user name stays (as net/url's Redacted shows it); a userinfo of an http or https
// URL without a password is a token, and shows as Mask whole. What else s says is kept:
// the caller prints it through inert as it prints any text.
func URLs(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	done := 0
	for i := 0; ; {
		k := strings.Index(s[i:], "://")
		if k < 0 {
			break
		}
		start := i + k + len("://")
		end := authorityEnd(s, start)
		if strings.Contains(s[start:end], "@") {
			b.WriteString(s[done:start])
			b.WriteString(userinfo(s[:end], scheme(s[:i+k]), start, end)[start:])
			done = end
		}
		i = end
		if i >= len(s) {
			break
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// userinfo is a with the userinfo of the authority a[start:end] redacted, if it has one.
func userinfo(a, scheme string, start, end int) string {
	at := strings.LastIndex(a[start:end], "@")
	if at < 0 {
		return a
	}
	at += start
	user, _, hasPassword := strings.Cut(a[start:at], ":")
	switch {
	case hasPassword:
		return a[:start] + user + ":" + Mask + a[at:]
	case scheme == "" || scheme == "http" || scheme == "https":
		return a[:start] + Mask + a[at:]
	}
	return a // ssh://git@host: a user name, no secret
}

// authorityEnd is where the authority that starts at s[start:] ends: at its path, query
// or fragment, or at a character no URL holds unencoded (a space, a quote that ends a URL
// quoted in text). A userinfo may hold any other ("!$&'()*+,;=").
func authorityEnd(s string, start int) int {
	if n := strings.IndexAny(s[start:], "/?#\"`<> \t\r\n"); n >= 0 {
		return start + n
	}
	return len(s)
}

// scheme is the URL scheme that ends s (lower-cased), "" when none.
func scheme(s string) string {
	i := len(s)
	for i > 0 && isSchemeChar(s[i-1]) {
		i--
	}
	for i < len(s) && !isLetter(s[i]) { // a scheme begins with a letter
		i++
	}
	return strings.ToLower(s[i:])
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isSchemeChar(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}
