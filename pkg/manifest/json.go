package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
)

// checkJSON holds a .json file to JSON. Read as YAML (JSON is YAML), a trailing comma or
// a comment passes, while kubectl and the GitOps tools that apply the file refuse it.
func checkJSON(file string, data []byte) *DecodeError {
	if !strings.EqualFold(filepath.Ext(file), ".json") {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for doc := 0; ; doc++ {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			line := 1 + bytes.Count(data[:min(int(dec.InputOffset()), len(data))], []byte("\n"))
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			}
			return &DecodeError{File: file, Doc: doc, Line: line, Msg: "invalid JSON: " + err.Error()}
		}
	}
}
