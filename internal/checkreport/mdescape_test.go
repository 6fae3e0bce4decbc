package checkreport

import (
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

func TestMDExamples(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"payments/clusters/web.yaml:7", "payments/clusters/web.yaml:7"},
		{"a&#x202E;b.yaml", "a&amp;#x202E;b.yaml"},
		{"&amp; &lt;b&gt;", "&amp;amp; &amp;lt;b&amp;gt;"},
		{"cc @octocat and @org/team", "cc @&#8203;octocat and @&#8203;org/team"},
		{"bob@example.com", "bob@&#8203;example.com"},
		{"a :smile: b :+1:", "a :&#8203;smile: b :&#8203;+1:"},
		{"~~gone~~", `\~\~gone\~\~`},
		{"see www.evil.example and WWW.evil.example", "see www&#8203;.evil.example and WWW&#8203;.evil.example"},
		{"https://evil.example/x", "https:&#8203;//evil.example/x"},
		{"$x^2$", `\$x^2\$`},
		{"a|b <i>*x* _y_ `z` [l](u)", `a\|b &lt;i&gt;\*x\* \_y\_ \` + "`z\\`" + ` \[l\](u)`},
		{"# heading", `\# heading`},
		{"> quote", `\> quote`},
		{"- item", `\- item`},
		{"12. item", `12\. item`},
		{"    code", "&#32;&#32;&#32;&#32;code"},
		{"\x1b[2J\u202e", `^\[\[2J\\u202e`},
	} {
		if got := md(c.in); got != c.want {
			t.Errorf("md(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// hostileAtoms are pieces of text from a pull request that GitHub's Markdown would make
// something of: references, raw HTML, mentions, emoji, strikethrough, math, autolinks,
// emphasis, code, links, tables' pipes, block markers, terminal escapes.
var hostileAtoms = []string{
	"&#x202E;", "&#8238;", "&amp;", "&lt;", "&", "&#", "<b>", "</td>", "<!--", ">",
	"@octocat", "@org/team", "@", "@-x", "@_x", "bob@example.com", "mailto:a@b.co",
	":smile:", ":+1:", ":-1:", ":", "::", ":x", "x:",
	"~~", "~x~", "~", "$", "$$", "$x$",
	"www.", "WWW.evil.example", "www", "http://evil.example", "https://", "HTTPS://x", "ftp://x", "//",
	"*", "**b**", "_", "__u__", "`", "```", "[", "]", "[l](http://x)", "![i](x)", "[^1]",
	"|", "\\", "\\|", "#", "# ", ">", "- ", "+ ", "= ", "1. ", "1) ", "    ", " ",
	"\x1b[2J", "\u202e", "\r", "\n", "\t", "é", "x", "1",
}

// hostileStrings are every pair of atoms, with nothing, a space or a letter between, and
// random longer mixes (a fixed seed: the same strings every run).
func hostileStrings() []string {
	var out []string
	for _, a := range hostileAtoms {
		for _, b := range hostileAtoms {
			for _, sep := range []string{"", " ", "a"} {
				out = append(out, a+sep+b)
			}
		}
	}
	rnd := rand.New(rand.NewSource(1))
	for range 2000 {
		var b strings.Builder
		for range 2 + rnd.Intn(6) {
			b.WriteString(hostileAtoms[rnd.Intn(len(hostileAtoms))])
		}
		out = append(out, b.String())
	}
	return out
}

// rendered is the text GitHub shows for md's output m, inline in a table cell or list
// item: backslash escapes and character references decoded, zero-width spaces kept (GitHub
// looks for mentions and emoji in this text). An unescaped markup character or a
// reference md does not write is an error.
func rendered(m string) (string, error) {
	refs := map[string]string{"&amp;": "&", "&lt;": "<", "&gt;": ">", "&#8203;": "\u200b", "&#32;": " "}
	var b strings.Builder
	for i := 0; i < len(m); i++ {
		c := m[i]
		switch {
		case c == '\\':
			if i+1 == len(m) || !strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", rune(m[i+1])) {
				return "", fmt.Errorf("a backslash escaping nothing at %d", i)
			}
			b.WriteByte(m[i+1])
			i++
		case c == '&':
			end := strings.IndexByte(m[i:], ';')
			if end < 0 || refs[m[i:i+end+1]] == "" {
				return "", fmt.Errorf("a character reference md does not write at %d", i)
			}
			b.WriteString(refs[m[i:i+end+1]])
			i += end
		case strings.IndexByte("|<>*_[]~$`", c) >= 0:
			return "", fmt.Errorf("%q unescaped at %d", c, i)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// What GitHub makes of plain text once rendered, and what opens a block at a list item's
// start.
var (
	markupInText = map[string]*regexp.Regexp{
		"mention or e-mail": regexp.MustCompile(`@[A-Za-z0-9_-]`),
		"emoji":             regexp.MustCompile(`:[A-Za-z0-9_+-]+:`),
		"www autolink":      regexp.MustCompile(`(?i)www\.`),
		"url autolink":      regexp.MustCompile(`://`),
	}
	blockStart = regexp.MustCompile(`^( |#|>|-|\+|=|[0-9]+[.)])`)
)

// Every hostile string shows literally: md's output renders back to the inert text, with
// no markup character left unescaped, no character reference of the input's own, and
// nothing GitHub's extensions would make a mention, emoji, link or block of.
func TestMDShowsHostileTextLiterally(t *testing.T) {
	fails := 0
	for _, s := range hostileStrings() {
		m := md(s)
		problem := ""
		r, err := rendered(m)
		switch {
		case err != nil:
			problem = err.Error()
		case strings.ReplaceAll(r, "\u200b", "") != inert.Text(s):
			problem = fmt.Sprintf("renders as %q, not the text", r)
		case inert.Text(m) != m:
			problem = "not inert"
		case blockStart.MatchString(m):
			problem = "opens a block"
		}
		for what, re := range markupInText {
			if problem == "" && re.MatchString(r) {
				problem = what + " in " + fmt.Sprintf("%q", r)
			}
		}
		if problem != "" {
			if fails++; fails <= 20 {
				t.Errorf("md(%q) = %q: %s", s, m, problem)
			}
		}
	}
	if fails > 20 {
		t.Errorf("... %d strings in all", fails)
	}
}
