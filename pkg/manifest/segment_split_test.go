package manifest

import (
	"reflect"
	"strings"
	"testing"
)

// splitDocumentsByLines is splitDocuments as it was, over a slice of lines: the reference.
func splitDocumentsByLines(data string) []segment {
	lines := splitLines(data)
	var segs []segment
	cur := segment{line: 1}
	var b strings.Builder
	off := 0
	flush := func() {
		cur.text = b.String()
		segs = append(segs, cur)
		b.Reset()
	}
	for i, l := range lines {
		check := l
		if i == 0 {
			check = strings.TrimPrefix(l, "\ufeff")
		}
		if isSeparator(check) {
			if i > 0 {
				flush()
			}
			cur = segment{line: i + 1, off: off, sep: true}
		}
		b.WriteString(l)
		off += len(l)
	}
	flush()
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

func TestSplitDocumentsAsByLines(t *testing.T) {
	for _, in := range []string{"", "\n", "a: 1", "a: 1\n", "---", "---\n", "--- \na: 1\n---\nb: 2",
		"\ufeff---\na: 1\n", "# c\n---\na: 1\n---\n", "a: 1\r\n---\r\nb: 2\r\n", "---x\n--- # c\n---\t\n",
		"a: |\n  ---\n---\n...\n---\n", "\n\n---\n\n", "x\n----\n---"} {
		got := splitDocuments(in)
		if want := splitDocumentsByLines(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", in, got, want)
		}
		for _, seg := range got {
			if in[seg.off:seg.off+len(seg.text)] != seg.text {
				t.Errorf("%q: segment at %d is not its text %q", in, seg.off, seg.text)
			}
		}
	}
}
