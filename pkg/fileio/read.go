package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge is wrapped by the errors of reads that passed their limit.
var ErrTooLarge = errors.New("too large")

// ErrNotRegular is wrapped by the errors of ReadFile on anything but a regular file.
var ErrNotRegular = errors.New("not a regular file")

// KindOf names a file mode for an error message: "a directory", "a FIFO", ...
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "an irregular file"
}

// ReadFile reads path, following symlinks, if it is a regular file of at most limit
// bytes. The file is opened without blocking, so a FIFO is refused instead of waited on,
// and the size is counted while reading, so /dev/zero or a growing file cannot exhaust
// memory.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := readAll(f, limit, st.Size())
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return b, nil
}

// ReadAll reads r to its end, failing with ErrTooLarge past limit bytes.
func ReadAll(r io.Reader, limit int64) ([]byte, error) { return readAll(r, limit, 0) }

// readAll is ReadAll with a guess of the size (a file's, which may be wrong: only what is
// read counts against limit), so that a file is read into one buffer of its size rather
// than one grown step by step.
func readAll(r io.Reader, limit, size int64) ([]byte, error) {
	var b []byte
	if size > 0 && size <= limit {
		b = make([]byte, 0, size+1) // one more byte, to meet the end without growing
		lr := io.LimitReader(r, limit+1)
		for {
			if len(b) == cap(b) {
				b = append(b, 0)[:len(b)]
			}
			n, err := lr.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
		}
	} else {
		var err error
		if b, err = io.ReadAll(io.LimitReader(r, limit+1)); err != nil {
			return nil, err
		}
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: more than %s", ErrTooLarge, Size(limit))
	}
	return b, nil
}

// Size prints a byte count in binary units, as limits are quoted in messages.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadSpan reads n bytes at off of path, following symlinks, if it is a regular file: the
// part of a file read whole before, read again.
func ReadSpan(path string, off, n int64) ([]byte, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return b, nil
}

// openRegular opens path, following symlinks, if it is a regular file. It opens without
// blocking, so a FIFO is refused instead of waited on.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, KindOf(st.Mode()))}
	}
	return f, st, nil
}
