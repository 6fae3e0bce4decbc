package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// Limits on what Load reads (docs/ci-on-manifests.md). A Kubernetes object is at most
// 1.5 MiB once stored, so a manifest file beyond these is a mistake or an attack; they are
// counted in bytes actually read, never taken from the size a file reports.
const (
	// DefaultMaxFileBytes bounds each manifest file and standard input.
	DefaultMaxFileBytes = 8 << 20
	// DefaultMaxTotalBytes bounds everything one Load reads: a tree of 100,000 clusters
	// is about 360 MiB. What a Load keeps is bounded by its node bound (bounds.go), which
	// grows with what was read; a file's bytes are dropped once it is decoded.
	DefaultMaxTotalBytes = 512 << 20
	// MaxDocumentBytes bounds one YAML document: its parse tree costs about 100 times
	// its size in memory when it is dense.
	MaxDocumentBytes = 1 << 20
)

// Options change how Load reads.
type Options struct {
	// Strict refuses documents of groups other than Butler's and Steward's instead of
	// skipping them, so that a CI gate lists everything it did not check.
	Strict bool
	// MaxFileBytes and MaxTotalBytes override DefaultMaxFileBytes and DefaultMaxTotalBytes
	// when positive.
	MaxFileBytes, MaxTotalBytes int64
	// Skip, when set, is asked about every file once it is read: true leaves it out of
	// the Set (a renderer reads it instead: a kustomization file, a patch, a template).
	Skip func(path string, data []byte) bool
	// Reuse, when set, is asked about every file read (and not skipped): objects it
	// returns (another Set's, Set.ByFile) are taken as the file's, without decoding it
	// again (a base tree's files that a change leaves as they are). Their Source.File
	// becomes the path read. It is asked on the loader's workers, several files at once,
	// so it must be safe for that.
	Reuse func(path string, data []byte) (FileObjects, bool)
	// Tolerate, when set, is asked about each unknown field of a typed object (its
	// apiVersion, kind and field path): true keeps the field out of the object, listed in
	// Object.NotJudged, instead of refusing the document.
	Tolerate func(apiVersion, kind, field string) bool
	// Settle, when set, decides what to tolerate at the end of the Load, once every file
	// is read (the caller learns it from them: a tree's CRDs). Meanwhile every unknown
	// field of a typed object is tolerated provisionally; Settle's answer (nil: nothing)
	// then stands for Tolerate, and each file holding a field it does not tolerate is
	// decoded again from the bytes read, so that the Set and the errors are those of a Load
	// with that Tolerate, and no file is read twice. Settle is called once, and only when a
	// field was tolerated provisionally (else nothing is tolerated); Tolerate is not asked.
	// LoadWith only.
	Settle func() func(apiVersion, kind, field string) bool
	// AllowDuplicates keeps two objects of one identity (a GitOps tree holds one per
	// cluster it targets); the caller checks each target with Duplicates.
	AllowDuplicates bool
	// ReadsEveryCluster says the caller reads every cluster whole (a change check compares
	// and judges each): the Load then holds them all whole, whatever the tree's size, rather
	// than keep records it would decode each of again (WholeBytes). It changes what the
	// Load holds, never what its Set says.
	ReadsEveryCluster bool
	// Scratch are directories the caller makes while the walk runs (a base tree extracted
	// for a change check), which may be below the paths read: the walk never enters them.
	// They are the caller's, not the tree's, so they are not listed in Set.LeftOut.
	Scratch []string
	// Exclude are patterns of .gitignore's syntax (--exclude) that leave paths below each
	// directory given out of its walk, relative to that directory, after the patterns of
	// its IgnoreFile. An excluded path is never read; Set.Excluded lists it.
	Exclude []string
	// IgnoreFile, when set, gives the IgnoreFile of a directory given in place of the one
	// in it (found false: none): a change is judged by the base's copy.
	IgnoreFile func(dir string) (data []byte, found bool, err error)
	// ReadFile, when set, reads each manifest file in place of fileio.ReadFile, with its
	// errors: a caller that decodes a tree more than once (a render that learns what to
	// tolerate only after a first pass) keeps the bytes of the first and gives them again,
	// so that no file is read twice. The walk, the limits and Skip are as without it.
	ReadFile func(path string, limit int64) ([]byte, error)

	// validate: the objects are validated after decoding (a Load), so an object with
	// wrong fields is validated too, for every problem at once.
	validate bool
	// intern: the worker's interner (parallel.go); nil outside a Load's workers.
	intern *interner
	// from: how the records of a file whose clusters a Load keeps as records are read
	// again (lean.go); nil for a file whose clusters are held whole.
	from *rereader
}

func (o Options) fileLimit() int64 {
	if o.MaxFileBytes > 0 {
		return o.MaxFileBytes
	}
	return DefaultMaxFileBytes
}

func (o Options) totalLimit() int64 {
	if o.MaxTotalBytes > 0 {
		return o.MaxTotalBytes
	}
	return DefaultMaxTotalBytes
}

// fileID identifies a file or directory whatever the path that reached it.
type fileID struct{ dev, ino uint64 }

// reader walks the paths given to Load and reads each manifest once, within the limits.
type reader struct {
	opts      Options
	read      func(name string, data []byte)
	list      func(name string) // set by Walk: files are listed, not read
	errs      []error
	total     int64
	seenFiles map[fileID]bool
	seenDirs  map[fileID]bool
	stdinRead bool
	// full: the run's total was reached; reading stops there, with one error.
	full bool
	// leftOut are the tool folders the walk did not enter (ToolDirs); scratch the
	// identities of opts.Scratch.
	leftOut []string
	scratch map[fileID]bool
	// ign is the directory given being walked and its patterns (nil: none); excluded the
	// paths they left out and patterns every pattern applied (ignore.go).
	ign      *ignore
	excluded []string
	patterns []string
}

// newReader is a reader of paths with opts; read is given each manifest's bytes.
func newReader(opts Options, read func(name string, data []byte)) *reader {
	r := &reader{opts: opts, read: read, seenFiles: map[fileID]bool{}, seenDirs: map[fileID]bool{}}
	for _, d := range opts.Scratch {
		if fi, err := os.Stat(d); err == nil {
			if id, ok := idOf(fi); ok {
				if r.scratch == nil {
					r.scratch = map[fileID]bool{}
				}
				r.scratch[id] = true
			}
		}
	}
	return r
}

// ToolDirs are the folders a walk of a directory leaves out: a version control system's
// metadata, and CI configuration (GitHub's and CircleCI's, which Flux's source-controller
// leaves out of what it ships too). They hold YAML that is not manifests (workflows, the
// check's author map). Every other entry is read, hidden or not, as kubectl apply -R and
// Flux's generated kustomization read it; a tool folder the walk meets is listed
// (Set.LeftOut), never passed over silently. One named as a path is read.
var ToolDirs = []string{".git", ".hg", ".svn", ".github", ".circleci"}

// toolDir reports whether a directory entry's name is one of ToolDirs.
func toolDir(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	for _, d := range ToolDirs {
		if name == d {
			return true
		}
	}
	return false
}

func (r *reader) fail(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

// path reads one path given on the command line: a file whatever its name, a directory
// recursively, or "-".
func (r *reader) path(p string, stdin io.Reader) {
	if r.full {
		return
	}
	if p == Stdin {
		r.stdin(stdin)
		return
	}
	fi, err := os.Stat(p) // follows symlinks, as every path below does
	if err != nil {
		r.errs = append(r.errs, pathError(p, err))
		return
	}
	if fi.IsDir() {
		r.ign = r.ignoreFor(p)
		r.dir(p, nil)
		r.ign = nil
		return
	}
	r.file(p, fi)
}

func (r *reader) stdin(stdin io.Reader) {
	if r.stdinRead {
		r.fail(`"-" (stdin) given more than once`)
		return
	}
	r.stdinRead = true
	if stdin == nil {
		r.fail("no standard input to read")
		return
	}
	limit, which := r.limit()
	data, err := fileio.ReadAll(stdin, limit)
	if errors.Is(err, fileio.ErrTooLarge) {
		r.tooLarge("<stdin>", limit, which)
		return
	}
	if err != nil {
		r.fail("read stdin: %v", err)
		return
	}
	if !yamldoc.HasContent(string(data)) {
		// A pipeline whose producer failed sends nothing: a gate must not pass on that.
		r.fail("<stdin>: no manifests: standard input was empty")
		return
	}
	r.total += int64(len(data))
	r.read(Stdin, data)
}

// limit is what the next file may hold: the per-file limit or what is left of the total.
func (r *reader) limit() (int64, string) {
	limit, which := r.opts.fileLimit(), "per manifest file"
	if left := r.opts.totalLimit() - r.total; left < limit {
		limit, which = max(left, 0), fmt.Sprintf("of %s for all manifests together", fileio.Size(r.opts.totalLimit()))
	}
	return limit, which
}

// tooLarge reports a file past a limit. Past the run's total, reading stops: one error
// says so, rather than one for every file left.
func (r *reader) tooLarge(name string, limit int64, which string) {
	if which == "per manifest file" {
		r.fail("%s: larger than %s (the limit %s)", name, fileio.Size(limit), which)
		return
	}
	r.full = true
	r.fail("%s: larger than %s (what is left of the limit %s); nothing after this point was read", name, fileio.Size(limit), which)
}

// file reads a file that Stat (following symlinks) described as fi.
func (r *reader) file(p string, fi fs.FileInfo) {
	if !fi.Mode().IsRegular() {
		r.fail("%s: not a regular file (it is %s%s); manifests are read only from regular files", p, fileio.KindOf(fi.Mode()), via(p))
		return
	}
	if id, ok := idOf(fi); ok {
		if r.seenFiles[id] {
			return // the same file named twice, or reached through a symlink too
		}
		r.seenFiles[id] = true
	}
	if r.list != nil {
		r.list(p)
		return
	}
	limit, which := r.limit()
	readFile := fileio.ReadFile
	if r.opts.ReadFile != nil {
		readFile = r.opts.ReadFile
	}
	data, err := readFile(p, limit)
	switch {
	case errors.Is(err, fileio.ErrTooLarge):
		r.tooLarge(p, limit, which)
		return
	case errors.Is(err, fileio.ErrNotRegular):
		r.fail("%s: not a regular file%s; manifests are read only from regular files", p, via(p))
		return
	case err != nil:
		r.errs = append(r.errs, pathError(p, err))
		return
	}
	r.total += int64(len(data))
	if r.opts.Skip != nil && r.opts.Skip(p, data) {
		return
	}
	r.read(p, data)
}

// dir reads every manifest file below dir in lexical order, following symlinks to files
// and directories alike; hidden entries are read too, tool folders (ToolDirs) left out and
// listed. stack holds the directories being walked, so that a symlink back to one of them
// is reported as a loop.
func (r *reader) dir(dir string, stack []fileID) {
	fi, err := os.Stat(dir)
	if err != nil {
		r.errs = append(r.errs, pathError(dir, err))
		return
	}
	if id, ok := idOf(fi); ok {
		if r.scratch[id] {
			return // the caller's own, made while this walk runs
		}
		for _, s := range stack {
			if s == id {
				r.fail("%s: symlink loop: it leads back to a directory that contains it%s", dir, via(dir))
				return
			}
		}
		if r.seenDirs[id] {
			return // reached twice, through different links: read once
		}
		r.seenDirs[id] = true
		stack = append(stack, id)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		r.errs = append(r.errs, pathError(dir, err))
		return
	}
	for _, e := range entries {
		if r.full {
			return
		}
		p := filepath.Join(dir, e.Name())
		if toolDir(e.Name()) {
			if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
				r.leftOut = append(r.leftOut, p)
			}
			continue // a worktree's .git file is no manifest either
		}
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			// Followed whether it leads to a file or a directory; a broken one may have been
			// either, so it is reported rather than passed over, unless it is excluded.
			st, err := os.Stat(p)
			if err != nil {
				if !r.excludesLink(p) {
					r.errs = append(r.errs, pathError(p, err))
				}
				continue
			}
			mode = st.Mode()
		}
		switch {
		case (mode.IsDir() || manifestFile(e.Name())) && r.excludes(p, mode.IsDir()):
		case mode.IsDir():
			r.dir(p, stack)
		case manifestFile(e.Name()):
			st, err := os.Stat(p)
			if err != nil {
				r.errs = append(r.errs, pathError(p, err))
				continue
			}
			r.file(p, st)
		}
	}
}

// via names the target of a symlink for an error message.
func via(p string) string {
	if t, err := os.Readlink(p); err == nil {
		return ", through the symlink to " + t
	}
	return ""
}

// pathError words a file system error with the path first, like the other errors of Load.
func pathError(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if t, lerr := os.Readlink(p); lerr == nil {
			return fmt.Errorf("%s: broken symlink: %s does not exist", p, t)
		}
		return fmt.Errorf("%s: no such file or directory", p)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%s: symlink loop", p)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", p)
	}
	return fmt.Errorf("%s: %v", p, err)
}

// ReadFiles reads paths exactly as Load does (the same walk, limits and refusals: a FIFO
// or a device is refused without waiting on it, a file past the limit is an error) and
// hands each manifest's bytes to fn, in order, without decoding them: the one reader for
// commands that decode on their own (-f of provider and policy commands). It returns the
// reader's errors, each naming its path.
func ReadFiles(paths []string, stdin io.Reader, opts Options, fn func(name string, data []byte)) []error {
	r := newReader(opts, fn)
	for _, p := range paths {
		r.path(p, stdin)
	}
	return r.errs
}
