package yamldoc

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// Segment is the text of one YAML document, from its "---" line (if any) up to the next.
// Reading and writing both split files this way, so document indices always agree.
type Segment struct {
	Text string
	Line int  // 1-based line of the segment's first line in the file
	Off  int  // byte offset of the segment in the file
	Doc  int  // document index, or -1 for a leading part that holds no document
	Sep  bool // the first line is a "---" marker
}

// IsSeparator reports whether a line is a document start marker. YAML forbids "---" at
// the start of a line inside any content, so this split is exact.
func IsSeparator(line string) bool {
	if !strings.HasPrefix(line, "---") {
		return false
	}
	if len(line) == 3 {
		return true
	}
	switch line[3] {
	case ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// SplitLines splits after every "\n", keeping the line endings.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// SplitDocuments splits the text of a file into its documents.
func SplitDocuments(data string) []Segment {
	// Segments are substrings of data, found line by line without splitting it into lines:
	// a Load splits every file it reads.
	var segs []Segment
	cur := Segment{Line: 1}
	start, line := 0, 0
	for pos := 0; pos < len(data); line++ {
		end := len(data)
		if i := strings.IndexByte(data[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		}
		check := data[pos:end]
		if line == 0 {
			check = strings.TrimPrefix(check, "\ufeff")
		}
		if IsSeparator(check) {
			if line > 0 {
				cur.Text = data[start:pos]
				segs = append(segs, cur)
				start = pos
			}
			cur = Segment{Line: line + 1, Off: pos, Sep: true}
		}
		pos = end
	}
	cur.Text = data[start:]
	segs = append(segs, cur)
	doc := 0
	for i := range segs {
		if i == 0 && !segs[i].Sep && !HasContent(segs[i].Text) {
			segs[i].Doc = -1
			continue
		}
		segs[i].Doc = doc
		doc++
	}
	return segs
}

// HasContent reports whether text holds anything but blank lines, comments and directives.
func HasContent(text string) bool {
	for text != "" {
		l := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l = text[:i+1]
		}
		text = text[len(l):]
		t := strings.TrimSpace(strings.TrimPrefix(l, "\ufeff"))
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(l, "%") {
			continue
		}
		return true
	}
	return false
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// ParseSegment parses the document of a segment. It returns nil for an empty document.
// Lines in the returned nodes are relative to the segment; the error carries absolute ones.
// A document that may hold more than MaxParseNodes nodes is refused unparsed, and one that
// holds more than MaxNodes after parsing (nodebound.go).
func ParseSegment(s Segment) (*yaml.Node, int, string, error) {
	if bound := NodeBound(s.Text); bound > MaxParseNodes {
		return nil, s.Line, fmt.Sprintf("document too large (its %s could hold %d nodes, and a document may hold %d)",
			fileio.Size(int64(len(s.Text))), bound, MaxNodes), ErrTooDense
	}
	dec := yaml.NewDecoder(strings.NewReader(s.Text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, 0, "", nil
		}
		line, msg := yamlErrorLine(err, s.Line)
		return nil, line, msg, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err == nil {
			return nil, extra.Line + s.Line - 1, "a document ended with \"...\" must be followed by \"---\"", errors.New("extra document")
		}
		line, msg := yamlErrorLine(err, s.Line)
		return nil, line, msg, err
	}
	if len(doc.Content) == 0 {
		return nil, 0, "", nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, 0, "", nil
	}
	if line, over := tooManyNodes(root); over {
		return nil, line + s.Line - 1, TooManyNodesMsg(), ErrTooDense
	}
	return &doc, 0, "", nil
}

// ErrTooDense is the error of a document refused for its nodes (its message says which).
var ErrTooDense = errors.New("document too large")

// yamlErrorLine pulls the line out of a yaml.v3 error and makes it absolute.
func yamlErrorLine(err error, offset int) (int, string) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n + offset - 1, "invalid YAML: " + msg[len(m[0]):]
	}
	return offset, "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")
}

// LineOffsets returns the byte offset where each line starts, plus one past the end.
func LineOffsets(text string) []int {
	offs := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			offs = append(offs, i+1)
		}
	}
	if offs[len(offs)-1] != len(text) {
		offs = append(offs, len(text))
	}
	return offs
}
