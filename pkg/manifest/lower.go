package manifest

import "github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"

// The reading code's names for what it shares with the packages below it: the documents
// of a file, the line index of an object's fields and the strings a Load shares.
type (
	segment   = yamldoc.Segment
	pathTable = yamldoc.PathTable
	lineIndex = yamldoc.LineIndex
	interner  = yamldoc.Interner
)

func newPathTable() *pathTable { return yamldoc.NewPathTable() }

func newInterner() *interner { return yamldoc.NewInterner() }
