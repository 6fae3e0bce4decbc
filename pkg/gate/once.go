package gate

import (
	"sync"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// A run reads each file once. Within a tree's load, pkg/gitops keeps what it read for a
// second pass (standard input, the CRDs). Across the trees of a change, the base's files
// that head's load reads to find their CRDs (the base's CRDs decide what head may leave
// unjudged, and are looked for only when head has a field the tools do not know) are kept
// and given to the base's load, which then does not read them again; otherwise the base's
// files are read by its load alone, and those head has as they are are not decoded again
// (reuse.go).

// fileRead, when set (tests), is told of every manifest file a run reads whole.
var fileRead func(path string)

// readFile is fileio.ReadFile, told to fileRead.
func readFile(path string, limit int64) ([]byte, error) {
	if fileRead != nil {
		fileRead(path)
	}
	return fileio.ReadFile(path, limit)
}

// keptCRDs are the base's files head's load read to find their CRDs, until the base's
// load takes them.
type keptCRDs struct {
	mu    sync.Mutex
	base  map[string]bool // the files of the base the CRDs were looked for in
	bytes map[string][]byte
}

func newKeptCRDs() *keptCRDs {
	return &keptCRDs{base: map[string]bool{}, bytes: map[string][]byte{}}
}

// files records the base's files, as gitops.Options.CRDs lists them to head's load.
func (k *keptCRDs) files(files []string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, f := range files {
		k.base[f] = true
	}
	return files
}

// headRead is head's manifest.Options.ReadFile: a file of the base is kept.
func (k *keptCRDs) headRead(path string, limit int64) ([]byte, error) {
	data, err := readFile(path, limit)
	if err == nil {
		k.mu.Lock()
		if k.base[path] {
			k.bytes[path] = data
		}
		k.mu.Unlock()
	}
	return data, err
}

// baseRead is the base's manifest.Options.ReadFile: what head's load kept, else the file.
func (k *keptCRDs) baseRead(path string, limit int64) ([]byte, error) {
	k.mu.Lock()
	data, ok := k.bytes[path]
	delete(k.bytes, path)
	k.mu.Unlock()
	if ok && int64(len(data)) <= limit {
		return data, nil
	}
	return readFile(path, limit)
}
