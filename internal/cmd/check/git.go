package check

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path"
	"strconv"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// gitBase is the base tree at rev. A file that git says is the same at rev as in the
// working tree (`git diff`) and that head read already is head's objects, not decoded
// again: a pull request's base costs the files it changes, not the whole tree.
func gitBase(ctx context.Context, rev string, paths []string, head *manifest.Set, opts manifest.Options) (*manifest.Set, error) {
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("not a revision")
	}
	out, err := git(ctx, nil, append([]string{"diff", "--name-only", "--relative", "--no-renames", "-z", rev, "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	for _, name := range strings.Split(string(out), "\x00") {
		changed[name] = true
	}
	byFile := map[string][]manifest.Object{}
	for _, o := range head.Objects {
		byFile[o.Source.File] = append(byFile[o.Source.File], o)
	}
	reuse := func(name string) bool { return !changed[name] && len(byFile[name]) > 0 }
	files, reused, err := gitFiles(ctx, rev, paths, reuse)
	if err != nil {
		return nil, err
	}
	base, err := manifest.LoadFiles(files, opts)
	if err != nil {
		return nil, err
	}
	for _, name := range reused {
		base.Objects = append(base.Objects, byFile[name]...)
	}
	return base, nil
}

// gitFiles reads the manifests under paths as they are at rev, without checking it out:
// `git ls-tree` lists the blobs (paths relative to the working directory, as --manifests
// names them) and one `git cat-file --batch` reads them, within the loader's limits per
// file and in total; the files reuse accepts are listed, not read. A directory gives its
// .yaml, .yml and .json files, hidden ones skipped, as the loader reads a directory;
// symlinks and submodules are skipped.
func gitFiles(ctx context.Context, rev string, paths []string, reuse func(name string) bool) (files []manifest.File, reused []string, err error) {
	type blob struct {
		oid, name string
		size      int64
	}
	var blobs []blob
	var total int64
	for _, p := range paths {
		if p == manifest.Stdin {
			return nil, nil, fmt.Errorf("the manifests come from standard input, which has no git history")
		}
		out, err := git(ctx, nil, "ls-tree", "-r", "-z", "-l", rev+"^{tree}", "--", p)
		if err != nil {
			return nil, nil, err
		}
		for _, rec := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			meta, name, ok := strings.Cut(rec, "\t")
			f := strings.Fields(meta)
			if !ok || len(f) != 4 || f[1] != "blob" || f[0] == "120000" {
				continue
			}
			if name != path.Clean(p) && !dirManifest(strings.TrimPrefix(name, strings.TrimSuffix(path.Clean(p), "/")+"/")) {
				continue
			}
			if reuse(name) {
				reused = append(reused, name)
				continue
			}
			size, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("git ls-tree: unexpected size %q", f[3])
			}
			if size > manifest.DefaultMaxFileBytes {
				return nil, nil, fmt.Errorf("%s is larger than %d bytes", name, manifest.DefaultMaxFileBytes)
			}
			if total += size; total > manifest.DefaultMaxTotalBytes {
				return nil, nil, fmt.Errorf("the manifests are larger than %d bytes together", manifest.DefaultMaxTotalBytes)
			}
			blobs = append(blobs, blob{f[2], name, size})
		}
	}
	if len(blobs) == 0 {
		return nil, reused, nil
	}
	var in bytes.Buffer
	for _, b := range blobs {
		in.WriteString(b.oid + "\n")
	}
	out, err := git(ctx, &in, "cat-file", "--batch")
	if err != nil {
		return nil, nil, err
	}
	r := bufio.NewReader(bytes.NewReader(out))
	files = make([]manifest.File, 0, len(blobs))
	for _, b := range blobs {
		header, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(header, b.oid+" blob "+strconv.FormatInt(b.size, 10)) {
			return nil, nil, fmt.Errorf("git cat-file: unexpected answer for %s", b.name)
		}
		data := make([]byte, b.size+1) // the content and its newline
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, nil, fmt.Errorf("git cat-file: %s cut short", b.name)
		}
		files = append(files, manifest.File{Name: b.name, Data: data[:b.size]})
	}
	return files, reused, nil
}

// dirManifest reports whether a file found under a directory is read, as the loader
// decides for a directory: no hidden element, a manifest extension.
func dirManifest(rel string) bool {
	for _, el := range strings.Split(rel, "/") {
		if strings.HasPrefix(el, ".") {
			return false
		}
	}
	return manifest.ManifestFile(rel)
}

// git runs a git command in the working directory; its stderr becomes the error.
func git(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return stdout.Bytes(), nil
}
