package gate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// What the walk leaves out decides what is judged, so a change must not choose it either:
// with a revision base the .butlerignore of each directory of head is the base revision's
// (a pull request that adds clusters/* to it is judged with its clusters), and with a
// base of paths the base directory's in the same position (docs/ci-on-manifests.md).

// ignoreCopy is what a directory's ignore file reads as.
type ignoreCopy struct {
	data  []byte
	found bool
	err   error
}

// headIgnore is how head's .butlerignore files are read (manifest.Options.IgnoreFile): the
// base's copies under a base, nil (each directory's own) without one. Each is read once
// however often the walk asks.
func (g *run) headIgnore(ctx context.Context) func(dir string) ([]byte, bool, error) {
	var read func(dir string) ignoreCopy
	switch {
	case g.Base.Revision != "":
		read = func(dir string) ignoreCopy { return g.baseRevisionIgnore(ctx, dir) }
	case len(g.Base.Paths) > 0:
		read = g.baseDirIgnore
	default:
		return nil
	}
	var mu sync.Mutex
	seen := map[string]ignoreCopy{}
	return func(dir string) ([]byte, bool, error) {
		mu.Lock()
		defer mu.Unlock()
		c, ok := seen[dir]
		if !ok {
			c = read(dir)
			seen[dir] = c
		}
		return c.data, c.found, c.err
	}
}

// baseRevisionIgnore is the base revision's copy of dir's ignore file; a directory outside
// the repository reads its own, as the CI's. A line on stderr says when the working
// tree's copy differs.
func (g *run) baseRevisionIgnore(ctx context.Context, dir string) ignoreCopy {
	rev := g.Base.Revision
	path := filepath.Join(dir, manifest.IgnoreFile)
	data, inRepo, err := BaseCopy(ctx, g.Repo, rev, path, manifest.MaxIgnoreBytes)
	if err != nil && !g.revisionHeld(ctx, rev) {
		// A base this clone does not hold fails once head is read, with how to fetch it;
		// meanwhile nothing is left out.
		return ignoreCopy{}
	}
	if err != nil {
		return ignoreCopy{err: fmt.Errorf("reading the base's copy (--base %s): %w", rev, err)}
	}
	if !inRepo {
		data, found, err := manifest.ReadIgnoreFile(dir)
		return ignoreCopy{data, found, err}
	}
	c := ignoreCopy{data: data, found: data != nil}
	g.sayWhichIgnore(path, c, "--base "+rev)
	return c
}

// revisionHeld reports whether the repository holds rev as a commit.
func (g *run) revisionHeld(ctx context.Context, rev string) bool {
	ctx, cancel := context.WithTimeout(ctx, g.GitTimeout)
	defer cancel()
	_, err := git(ctx, g.Repo, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	return err == nil
}

// baseDirIgnore is, for the i-th path of head, the ignore file of the i-th of the base;
// the directory's own when the two lists do not pair up.
func (g *run) baseDirIgnore(dir string) ignoreCopy {
	head, base := g.Head.Paths, g.Base.Paths
	if len(head) == len(base) {
		for i, m := range head {
			if m != dir {
				continue
			}
			if fi, err := os.Stat(base[i]); err == nil && fi.IsDir() {
				data, found, err := manifest.ReadIgnoreFile(base[i])
				c := ignoreCopy{data, found, err}
				if err == nil {
					g.sayWhichIgnore(filepath.Join(dir, manifest.IgnoreFile), c, "--base-manifests "+base[i])
				}
				return c
			}
		}
	}
	data, found, err := manifest.ReadIgnoreFile(dir)
	return ignoreCopy{data, found, err}
}

// sayWhichIgnore tells, on stderr, that the base's copy of an ignore file is read when
// the working tree's differs from it.
func (g *run) sayWhichIgnore(path string, base ignoreCopy, from string) {
	disk, found, _ := manifest.ReadIgnoreFile(filepath.Dir(path))
	if found == base.found && bytes.Equal(disk, base.data) {
		return
	}
	if base.found {
		fmt.Fprintf(g.Messages, "%s: the base's copy (%s) is read, not the working tree's: the change does not choose what is left out\n", path, from)
	} else {
		fmt.Fprintf(g.Messages, "%s: not in the base (%s), so it leaves nothing out: the change does not choose what is left out\n", path, from)
	}
}

// excludedNote says what --exclude and the .butlerignore files left out, unread: how
// many paths, and the patterns; "" when nothing was.
func excludedNote(paths, patterns []string) string {
	if len(paths) == 0 {
		return ""
	}
	what := "1 path"
	if len(paths) != 1 {
		what = fmt.Sprintf("%d paths", len(paths))
	}
	return fmt.Sprintf("left out by --exclude and %s, not read: %s (patterns: %s)", manifest.IgnoreFile, what, strings.Join(patterns, ", "))
}
