package manifest

import (
	"errors"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/internal/fastyaml"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// loadSegment is yamldoc.ParseSegment for reading: the documents of the subset fastyaml reads it
// parses several times faster, into the same tree without comments (nothing that reads
// reads them); it leaves every other document, and every error, to yaml.v3. Edits parse
// with yamldoc.ParseSegment, which keeps comments.
func loadSegment(s yamldoc.Segment) (*yaml.Node, int, string, error) {
	doc, err := fastParse(s.Text, yamldoc.MaxNodes)
	var limit *fastyaml.LimitError
	switch {
	case err == nil:
		return doc, 0, "", nil
	case errors.As(err, &limit):
		return nil, limit.Line + s.Line - 1, yamldoc.TooManyNodesMsg(), yamldoc.ErrTooDense
	}
	return yamldoc.ParseSegment(s)
}

// fastParse is fastyaml.Parse; a variable only so that tests can compare the load path
// without it.
var fastParse = fastyaml.Parse
