package manifest

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/internal/fastyaml"
)

// segment is the text of one YAML document, from its "---" line (if any) up to the next.
// Reading and writing both split files this way, so document indices always agree.
type segment struct {
	text string
	line int  // 1-based line of the segment's first line in the file
	off  int  // byte offset of the segment in the file
	doc  int  // document index, or -1 for a leading part that holds no document
	sep  bool // the first line is a "---" marker
}

// isSeparator reports whether a line is a document start marker. YAML forbids "---" at
// the start of a line inside any content, so this split is exact.
func isSeparator(line string) bool {
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

// splitLines splits after every "\n", keeping the line endings.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func splitDocuments(data string) []segment {
	// Segments are substrings of data, found line by line without splitting it into lines:
	// a Load splits every file it reads.
	var segs []segment
	cur := segment{line: 1}
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
		if isSeparator(check) {
			if line > 0 {
				cur.text = data[start:pos]
				segs = append(segs, cur)
				start = pos
			}
			cur = segment{line: line + 1, off: pos, sep: true}
		}
		pos = end
	}
	cur.text = data[start:]
	segs = append(segs, cur)
	doc := 0
	for i := range segs {
		if i == 0 && !segs[i].sep && !hasContent(segs[i].text) {
			segs[i].doc = -1
			continue
		}
		segs[i].doc = doc
		doc++
	}
	return segs
}

// hasContent reports whether text holds anything but blank lines, comments and directives.
func hasContent(text string) bool {
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

// parseSegment parses the document of a segment. It returns nil for an empty document.
// Lines in the returned nodes are relative to the segment; the error carries absolute ones.
// A document that may hold more than maxParseNodes nodes is refused unparsed, and one that
// holds more than maxNodes after parsing (nodebound.go).
func parseSegment(s segment) (*yaml.Node, int, string, error) {
	if bound := nodeBound(s.text); bound > maxParseNodes {
		return nil, s.line, fmt.Sprintf("document too large (its %s could hold %d nodes, and a document may hold %d)",
			fileio.Size(int64(len(s.text))), bound, maxNodes), errTooDense
	}
	dec := yaml.NewDecoder(strings.NewReader(s.text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, 0, "", nil
		}
		line, msg := yamlErrorLine(err, s.line)
		return nil, line, msg, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err == nil {
			return nil, extra.Line + s.line - 1, "a document ended with \"...\" must be followed by \"---\"", errors.New("extra document")
		}
		line, msg := yamlErrorLine(err, s.line)
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
		return nil, line + s.line - 1, tooManyNodesMsg(), errTooDense
	}
	return &doc, 0, "", nil
}

// errTooDense is the error of a document refused for its nodes (its message says which).
var errTooDense = errors.New("document too large")

// loadSegment is parseSegment for reading: the documents of the subset fastyaml reads it
// parses several times faster, into the same tree without comments (nothing that reads
// reads them); it leaves every other document, and every error, to yaml.v3. Edits parse
// with parseSegment, which keeps comments.
func loadSegment(s segment) (*yaml.Node, int, string, error) {
	doc, err := fastParse(s.text, maxNodes)
	var limit *fastyaml.LimitError
	switch {
	case err == nil:
		return doc, 0, "", nil
	case errors.As(err, &limit):
		return nil, limit.Line + s.line - 1, tooManyNodesMsg(), errTooDense
	}
	return parseSegment(s)
}

// fastParse is fastyaml.Parse; a variable only so that tests can compare the load path
// without it.
var fastParse = fastyaml.Parse

// yamlErrorLine pulls the line out of a yaml.v3 error and makes it absolute.
func yamlErrorLine(err error, offset int) (int, string) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n + offset - 1, "invalid YAML: " + msg[len(m[0]):]
	}
	return offset, "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")
}

// lineOffsets returns the byte offset where each line starts, plus one past the end.
func lineOffsets(text string) []int {
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
