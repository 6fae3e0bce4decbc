package manifest

import (
	"io/fs"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/edit"
)

// Change is one edit of a manifest file.
//
//   - Source set, Delete false: the document (or List item) at Source becomes Obj. Obj is
//     merged into the existing text: changed values are replaced where they stand, new
//     keys go to the end of their mapping, keys Obj no longer has are removed, and lists
//     of mappings with a name key are matched by name. Comments, key order, quoting and
//     the other documents stay as they are.
//   - Source set, Delete true: the document (or List item) is removed. Obj, if set, must
//     still match what is there.
//   - Source nil: Obj is appended to File as a new document (the file and its directory
//     are created when missing).
//
// The document at Source must still hold an object of the same kind and name, so that
// edits are never applied to a file that changed since it was read.
type Change struct {
	Source *Source
	File   string
	Obj    runtime.Object
	Delete bool
	// Mode is the permission of a file the change creates (0: 0644); an existing file
	// keeps its own. A Secret's file is created 0600, and its data is never on disk
	// under a wider mode.
	Mode fs.FileMode
}

// Write applies changes (pkg/manifest/edit does the work). Every file is rendered in
// memory first and any error leaves all files untouched; then each changed file is
// replaced atomically (a temporary file in the same directory, renamed over it, keeping
// its mode) and each new file created only if its name is still free. Should one fail, the
// files already written are put back.
//
// Write does not lock: a caller that reads, checks and then writes holds a lock over all
// three (the offline store does), so that two runs cannot both act on what they read.
func Write(changes []Change) error { return edit.Write(editChanges(changes)) }

// Render works changes out as Write does, with every check of Write, and writes nothing:
// what a dry run of an edit runs.
func Render(changes []Change) error { return edit.Render(editChanges(changes)) }

// MaxWriteSize bounds the file an edit reads back before changing it, counted as it is
// read: a file replaced by /dev/zero since it was loaded cannot exhaust memory.
const MaxWriteSize = edit.MaxWriteSize

// editChanges are the changes as pkg/manifest/edit takes them.
func editChanges(changes []Change) []edit.Change {
	out := make([]edit.Change, len(changes))
	for i, c := range changes {
		out[i] = edit.Change{File: c.File, Obj: c.Obj, Delete: c.Delete, Mode: c.Mode}
		if s := c.Source; s != nil {
			out[i].Source = &edit.Source{File: s.File, Doc: s.Doc, Item: s.Item, Name: s.String()}
		}
	}
	return out
}
