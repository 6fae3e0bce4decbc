package edit

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"
)

func blockHeader(v string) string {
	switch {
	case strings.HasSuffix(v, "\n\n"):
		return "|+"
	case strings.HasSuffix(v, "\n"):
		return "|"
	}
	return "|-"
}

// scalar writes a scalar on one line, keeping its quoting style where that is safe. An
// explicit tag (!!str 2, !vault "x") is kept in front of the value, written as it was.
func (e *emitter) scalar(n *yaml.Node, flow, isKey bool) string {
	if e.st.json {
		return jsonScalar(n)
	}
	if n.Style&yaml.TaggedStyle != 0 && n.Tag != "" {
		return n.Tag + " " + e.scalarText(n, flow || isKey, true)
	}
	return e.scalarText(n, flow || isKey, false)
}

// scalarText is a scalar's value as written; tagged, the tag says what the text means,
// so "2" or "true" may stay plain.
func (e *emitter) scalarText(n *yaml.Node, flow, tagged bool) string {
	tag := n.ShortTag()
	v := n.Value
	quoted := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0
	if tag != "!!str" && !localTag(tag) && !(tagged && quoted) {
		if tag == "!!null" && v == "" {
			return "null"
		}
		return v // numbers, booleans, timestamps and the like keep their text
	}
	switch {
	case n.Style&yaml.SingleQuotedStyle != 0 && !strings.ContainsAny(v, "\n\r") && printable(v, false):
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case n.Style&yaml.DoubleQuotedStyle != 0:
		return doubleQuoted(v)
	case plainSafe(v, flow), tagged && plainShape(v, flow):
		return v
	}
	return doubleQuoted(v)
}

func doubleQuoted(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func jsonScalar(n *yaml.Node) string {
	v, ok := schema.Scalar(n)
	if !ok {
		return doubleQuoted(n.Value)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func printable(s string, allowNewline bool) bool {
	for _, r := range s {
		if r == '\n' && allowNewline || r == '\t' {
			continue
		}
		if !unicode.IsPrint(r) || r == '\ufeff' {
			return false
		}
	}
	return true
}

var (
	// Plain scalars that some YAML reader (1.1 or 1.2) would not take as a string.
	yaml11Bool = regexp.MustCompile(`^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yamlNull   = regexp.MustCompile(`^(~|null|Null|NULL)$`)
	yamlNumber = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$|^[-+]?0[xX][0-9a-fA-F_]+$|^[-+]?0[oO]?[0-7_]+$|^[-+]?0[bB][01_]+$|^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$`)
	yamlTime   = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}`)
)

// plainSafe reports whether s can be written unquoted and read back as the same string
// by YAML 1.1 and 1.2 readers alike.
func plainSafe(s string, flow bool) bool {
	if s == "" || yaml11Bool.MatchString(s) || yamlNull.MatchString(s) || yamlNumber.MatchString(s) || yamlTime.MatchString(s) || s == "=" || s == "<<" {
		return false
	}
	return plainShape(s, flow)
}

// plainShape reports whether s reads back unquoted as one plain scalar with the same
// text, whatever type a reader would then resolve it to.
func plainShape(s string, flow bool) bool {
	if s == "" || !printable(s, false) || strings.ContainsAny(s, "\t") {
		return false
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(s[0])) {
		// "-x" style values are fine when the dash is not an indicator.
		if !(s[0] == '-' && len(s) > 1 && s[1] != ' ' && !strings.HasPrefix(s, "---")) {
			return false
		}
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' || strings.HasSuffix(s, ":") {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return false
	}
	if flow && strings.ContainsAny(s, ",[]{}") {
		return false
	}
	return true
}
