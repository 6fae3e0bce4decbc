package yamldoc

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// A document's memory is bounded by its nodes, never by the collector's timing: three
// bytes of YAML ("- \n") make a node of about 200 bytes in a parser's tree. The fast
// parser counts the nodes it makes and stops past MaxNodes; yaml.v3 builds a whole tree
// before anything can count it, so a document it would parse is first bounded by
// NodeBound, read off the text, and refused unparsed above MaxParseNodes.

// MaxNodes bounds the nodes of one document, aliases expanded, so that alias bombs fail
// instead of exploding.
const MaxNodes = 1 << 17

// MaxDepth bounds nesting, so that hostile input cannot exhaust the stack.
const MaxDepth = 256

// MaxParseNodes bounds the nodes yaml.v3 may build for one document: four times the nodes
// a document may hold, so that only text denser than manifests are written in (under
// about four bytes a word) is refused unparsed, and a refused document still costs at
// most a tree of this size.
const MaxParseNodes = 4 * MaxNodes

// NodeBound is an upper bound on the nodes of yaml.v3's tree of text, document node
// included. Every node starts at a token (a run of characters between whitespace, line
// breaks and flow indicators) or, when empty, right after one: a token stands for the
// scalar, alias or empty node it starts or precedes, and for one collection that starts
// with it; a token holding ':' also for the empty value after a key, and '?' for an empty
// key and its empty value. Closing indicators and commas start nothing. Text inside
// quotes, comments and block scalars is counted as tokens too: more, never fewer.
func NodeBound(text string) int {
	n := 2 // the document node, and a root that no token starts
	inToken, colon, question := false, false, false
	end := func() {
		if inToken {
			n += 2
			if colon || question {
				n++
			}
		}
		inToken, colon, question = false, false, false
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case ' ', '\t', '\n', '\r':
			end()
		case '[', '{':
			end()
			n += 2
		case ']', '}', ',':
			end()
		case 0xc2, 0xe2:
			// NEL (U+0085), LINE SEPARATOR and PARAGRAPH SEPARATOR break lines too.
			if c == 0xc2 && i+1 < len(text) && text[i+1] == 0x85 ||
				c == 0xe2 && i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xa8 || text[i+2] == 0xa9) {
				end()
				continue
			}
			inToken = true
		default:
			question = question || (!inToken && c == '?')
			colon = colon || c == ':'
			inToken = true
		}
	}
	end()
	return n
}

// tooManyNodes is the error of a document with more than MaxNodes nodes under its
// document node, at the line of the first node past them in document order: the fast
// parser's error, found in a tree yaml.v3 built, so that both paths say the same.
func tooManyNodes(root *yaml.Node) (line int, tooMany bool) {
	count := 0
	var walk func(n *yaml.Node) bool
	walk = func(n *yaml.Node) bool {
		if count++; count > MaxNodes {
			line = n.Line
			return false
		}
		for _, c := range n.Content {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	return line, !walk(root)
}

func TooManyNodesMsg() string {
	return fmt.Sprintf("document too large (more than %d nodes)", MaxNodes)
}
