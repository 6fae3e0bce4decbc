package yamldoc

import (
	"reflect"
	"strings"
	"testing"
)

// splitDocumentsByLines is SplitDocuments as it was, over a slice of lines: the reference.
func splitDocumentsByLines(data string) []Segment {
	lines := SplitLines(data)
	var segs []Segment
	cur := Segment{Line: 1}
	var b strings.Builder
	off := 0
	flush := func() {
		cur.Text = b.String()
		segs = append(segs, cur)
		b.Reset()
	}
	for i, l := range lines {
		check := l
		if i == 0 {
			check = strings.TrimPrefix(l, "\ufeff")
		}
		if IsSeparator(check) {
			if i > 0 {
				flush()
			}
			cur = Segment{Line: i + 1, Off: off, Sep: true}
		}
		b.WriteString(l)
		off += len(l)
	}
	flush()
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

func TestSplitDocumentsAsByLines(t *testing.T) {
	for _, in := range []string{"", "\n", "a: 1", "a: 1\n", "---", "---\n", "--- \na: 1\n---\nb: 2",
		"\ufeff---\na: 1\n", "# c\n---\na: 1\n---\n", "a: 1\r\n---\r\nb: 2\r\n", "---x\n--- # c\n---\t\n",
		"a: |\n  ---\n---\n...\n---\n", "\n\n---\n\n", "x\n----\n---"} {
		got := SplitDocuments(in)
		if want := splitDocumentsByLines(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", in, got, want)
		}
		for _, seg := range got {
			if in[seg.Off:seg.Off+len(seg.Text)] != seg.Text {
				t.Errorf("%q: Segment at %d is not its text %q", in, seg.Off, seg.Text)
			}
		}
	}
}
