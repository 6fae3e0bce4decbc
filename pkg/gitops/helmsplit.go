package gitops

import "strings"

// splitManifests is releaseutil.SplitManifests as an ordered list: the documents of a
// template's output, as Helm splits them, each trimmed, in order. Helm splits with the
// regular expression (?:^|\s*\n)---\s* and hands back a map keyed "manifest-N" that the
// caller sorts again; on a render of thousands of documents that regular expression was
// a tenth of a check's time. This scan finds the same matches (TestSplitManifestsAsHelm
// holds it to Helm's on generated text).
func splitManifests(text string) []string {
	s := strings.TrimSpace(text)
	var docs []string
	add := func(d string) {
		if d != "" {
			docs = append(docs, strings.TrimSpace(d))
		}
	}
	// Regexp.Split: the text between matches; a match at 0 adds nothing before it.
	beg, end := 0, 0
	for pos := 0; ; {
		m0, m1, ok := nextSeparator(s, pos)
		if !ok {
			break
		}
		end = m0
		if m1 != 0 {
			add(s[beg:end])
		}
		beg, pos = m1, m1
	}
	if end != len(s) {
		add(s[beg:])
	}
	return docs
}

// nextSeparator is the leftmost match of (?:^|\s*\n)---\s* in s at or after pos. \s is
// RE2's: space, \t, \n, \f, \r. A match of the second branch starts where a run of
// blanks starts (not before pos) whose last byte is \n and after which "---" follows:
// which blank of the run \s* starts from does not change whether "\n---" ends it, so the
// run's first one (at or after pos) is the leftmost start.
func nextSeparator(s string, pos int) (int, int, bool) {
	if pos == 0 && strings.HasPrefix(s, "---") { // ^ matches at the text's start only
		return 0, blanksEnd(s, 3), true
	}
	j := strings.Index(s[pos:], "\n---")
	if j < 0 {
		return 0, 0, false
	}
	nl := pos + j
	start := nl
	for start > pos && re2Space(s[start-1]) {
		start--
	}
	return start, blanksEnd(s, nl+4), true
}

// blanksEnd is the end of the run of RE2 blanks at i.
func blanksEnd(s string, i int) int {
	for i < len(s) && re2Space(s[i]) {
		i++
	}
	return i
}

func re2Space(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}
