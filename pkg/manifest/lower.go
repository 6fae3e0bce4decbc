package manifest

import (
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/schema"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// The reading code's names for what it shares with the packages below it: the documents
// of a file, the line index of an object's fields, the strings a Load shares and the
// values validation reads besides the object.
type (
	segment   = yamldoc.Segment
	pathTable = yamldoc.PathTable
	lineIndex = yamldoc.LineIndex
	interner  = yamldoc.Interner
	header    = yamldoc.Header

	// explicitValues are the values an object's document set that the object cannot show.
	explicitValues = schema.Explicit
)

func newPathTable() *pathTable { return yamldoc.NewPathTable() }

func newInterner() *interner { return yamldoc.NewInterner() }
