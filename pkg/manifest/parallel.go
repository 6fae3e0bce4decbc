package manifest

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// A Load reads files in order on its own goroutine (the walk, the limits and the file
// errors stay sequential) and decodes and validates them on GOMAXPROCS workers; the
// results are then taken in file order, so objects and errors come out as a sequential
// Load gives them. The bytes of a file live only until a worker has decoded it.
//
// The run's node bound is the one thing that depends on the files before: each worker
// counts a file on a budget of its own, and the in-order pass adds them up. The file where
// the sum crosses the bound is decoded again on the run's budget, so that the error names
// the same node as a sequential Load would; after it only checkJSON's errors count, as
// before. The workers also add their counts to one shared total, and stop once it is over
// the bound (the files they drop are decoded again in order, up to the crossing), so that
// hostile input costs no more work than it did sequentially.

// fileResult is what a worker made of one file.
type fileResult struct {
	name       string
	index      int    // in the order read
	stdin      []byte // standard input is kept: it cannot be read again
	errsBefore int    // reader errors that come before this file
	read       int64  // bytes submitted up to this file, its own included
	jsonErr    *DecodeError
	objs       []Object
	errs       []error // decoding's, then each object's validation errors
	units      int
	loose      int
	dropped    bool // not usable as it is (see decode): decode again in order
	// asked are the unknown fields tolerated provisionally (Options.Settle), and data
	// the file's bytes, kept when there are any: the file is decoded again, from them,
	// if Settle does not tolerate one.
	asked []question
	data  []byte
}

// question is an unknown field Options.Tolerate is asked about.
type question struct{ apiVersion, kind, field string }

// settled reports whether tol tolerates every field the file was asked about.
func (res *fileResult) settled(tol func(apiVersion, kind, field string) bool) bool {
	for _, q := range res.asked {
		if tol == nil || !tol(q.apiVersion, q.kind, q.field) {
			return false
		}
	}
	return true
}

// workerHook runs before a worker decodes a file; tests make it panic.
var workerHook = func(string) {}

type loadJob struct {
	res  *fileResult
	data []byte
}

type pipeline struct {
	opts    Options
	tab     *pathTable
	jobs    chan loadJob
	wg      sync.WaitGroup
	results []*fileResult
	total   atomic.Int64 // units counted by every worker
	read    atomic.Int64 // bytes submitted
}

func newPipeline(opts Options, tab *pathTable) *pipeline {
	n := runtime.GOMAXPROCS(0)
	if opts.Lean {
		ro := opts
		ro.Lean, ro.Reuse, ro.Skip, ro.Settle, ro.validate = false, nil, nil, nil, true
		opts.from = &rereader{opts: ro, tab: tab}
	}
	p := &pipeline{opts: opts, tab: tab, jobs: make(chan loadJob, 2*n)}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			in := newInterner()
			for j := range p.jobs {
				p.decode(j, in)
			}
		}()
	}
	return p
}

// submit queues a file read by the reader; errsBefore is how many reader errors precede it.
func (p *pipeline) submit(errsBefore int, name string, data []byte) {
	read := p.read.Add(int64(len(data)))
	res := &fileResult{name: name, index: len(p.results), errsBefore: errsBefore, read: read}
	if name == Stdin {
		res.stdin = data
	}
	p.results = append(p.results, res)
	p.jobs <- loadJob{res, data}
}

// reused takes the objects Options.Reuse knows for a file as the file's, in its place.
func (res *fileResult) reused(objs []Object) {
	res.objs = make([]Object, len(objs))
	for i, o := range objs {
		o.Source.File = res.name
		res.objs[i] = o
	}
}

// decode runs on a worker. A panic, which hostile input must never turn into a crash, is
// reported as an error of the file.
func (p *pipeline) decode(j loadJob, in *interner) {
	res := j.res
	defer func() {
		if v := recover(); v != nil {
			*res = fileResult{name: res.name, errsBefore: res.errsBefore,
				errs: []error{fmt.Errorf("%s: internal error while reading it: %v", displayFile(res.name), v)}}
		}
	}()
	workerHook(res.name)
	// Reuse runs here, on the workers, not in the reader: it digests what it compares, and
	// a change check asks it about every file of both trees.
	if p.opts.Reuse != nil {
		if objs, ok := p.opts.Reuse(res.name, j.data); ok {
			res.reused(objs)
			return
		}
	}
	if res.jsonErr = checkJSON(res.name, j.data); res.jsonErr != nil {
		return
	}
	b := &budget{shared: &p.total, read: &p.read, limit: runLimit(res.read)}
	opts := p.opts
	opts.intern = in
	if opts.Settle != nil {
		opts.Tolerate = func(apiVersion, kind, field string) bool {
			res.asked = append(res.asked, question{apiVersion, kind, field})
			return true
		}
	}
	res.objs, res.errs = decodeAndValidate(res.name, j.data, opts, b, p.tab)
	if len(res.asked) > 0 && res.stdin == nil {
		res.data = j.data
	}
	res.units, res.loose = b.units, b.loose
	if b.over() {
		// Over the bound on its own: exact for the first file, whose budget starts at zero
		// in a sequential Load too; any other is decoded again, and not kept meanwhile.
		res.dropped = res.index > 0
	} else {
		res.dropped = b.dropped
	}
	if res.dropped {
		res.objs, res.errs = nil, nil
	}
}

// decodeAndValidate decodes the documents of a file and validates each object.
func decodeAndValidate(name string, data []byte, opts Options, b *budget, tab *pathTable) ([]Object, []error) {
	var errs []error
	opts.validate = true
	// The bytes are a Load's own (read for it, never changed after) and nothing decoded
	// keeps a piece of the text (the parser copies what it keeps), so the text is the bytes,
	// not a copy of every file.
	text := unsafe.String(unsafe.SliceData(data), len(data))
	objs, spans, err := decodeSegments(name, splitDocuments(text), opts, b, tab)
	if err != nil {
		errs = append(errs, err)
	}
	for _, o := range objs {
		if err := Validate(o); err != nil {
			errs = append(errs, err)
		}
	}
	if rest, _ := splitNotObjects(errs); spans != nil && len(rest) == 0 && opts.from != nil {
		thin(objs, spans, opts.from)
	}
	return objs, errs
}

// finish waits for the workers and takes their results in file order, with the reader's
// errors in their places.
func (p *pipeline) finish(set *Set, readErrs []error) []error {
	close(p.jobs)
	p.wg.Wait()
	var errs []error
	n := 0
	for _, res := range p.results {
		n += len(res.objs)
	}
	if n > 0 {
		set.Objects = make([]Object, 0, n) // a file decoded again below may add a few
	}
	again := p.opts // for a file decoded again, here
	if p.opts.Settle != nil {
		again.Tolerate, again.Settle = nil, nil
		if slices.ContainsFunc(p.results, func(res *fileResult) bool { return len(res.asked) > 0 }) {
			again.Tolerate = p.opts.Settle()
		}
		if again.from != nil {
			again.from.opts.Tolerate = again.Tolerate
		}
	}
	run := newBudget()
	next, collected := 0, false
	for i, res := range p.results {
		p.results[i] = nil // its objects are the set's once copied there
		if !run.spent() {
			run.limit = runLimit(res.read)
		}
		errs = append(errs, readErrs[next:res.errsBefore]...)
		next = res.errsBefore
		switch {
		case res.jsonErr != nil:
			errs = append(errs, res.jsonErr)
			continue
		case run.spent():
			continue // nothing after the crossing is read
		case !res.settled(again.Tolerate):
			// Settle refuses a field the file was decoded tolerating: decoded again with
			// its answer, from the bytes read, as a Load with that Tolerate decodes it.
			res.objs, res.errs = decodeAndValidate(res.name, res.keptData(), again, run, p.tab)
		case !res.dropped && int64(run.units+res.units) <= run.limit && run.loose+res.loose <= runUnits:
			run.units += res.units
			run.loose += res.loose
		case !res.dropped && run.units == 0:
			run.units, run.loose, run.reported = res.units, res.loose, true // the first file, over a bound alone
		default:
			// The bound is crossed in this file, or a worker stopped short of it.
			if res.dropped && !collected {
				runtime.GC() // what the workers dropped goes before the run decodes it again
				collected = true
			}
			data := res.keptData()
			if data == nil {
				var err error
				if data, err = fileio.ReadFile(res.name, p.opts.fileLimit()); err != nil {
					errs = append(errs, pathError(res.name, err))
					continue
				}
			}
			res.objs, res.errs = decodeAndValidate(res.name, data, again, run, p.tab)
		}
		set.Objects = append(set.Objects, res.objs...)
		errs = append(errs, res.errs...)
	}
	return append(errs, readErrs[next:]...)
}

// keptData is the bytes of a file whose questions were kept (fileResult.asked).
func (res *fileResult) keptData() []byte {
	if res.stdin != nil {
		return res.stdin
	}
	return res.data
}
