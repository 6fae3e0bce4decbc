package manifest

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
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
	clusters   []clusterEntry // at: among objs
	errs       []error        // decoding's, then each object's validation errors
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

// keptData is the bytes of a file kept for decoding again (standard input, or a file
// with fields tolerated provisionally), nil for any other.
func (res *fileResult) keptData() []byte {
	if res.stdin != nil {
		return res.stdin
	}
	return res.data
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
	from    *rereader // how records are read again
	jobs    chan loadJob
	wg      sync.WaitGroup
	results []*fileResult
	total   atomic.Int64 // units counted by every worker
	read    atomic.Int64 // bytes submitted
}

func newPipeline(opts Options, tab *pathTable) *pipeline {
	n := runtime.GOMAXPROCS(0)
	ro := opts
	ro.Reuse, ro.Skip, ro.Settle, ro.validate, ro.from = nil, nil, nil, true, nil
	p := &pipeline{opts: opts, tab: tab, from: &rereader{opts: ro, tab: tab}, jobs: make(chan loadJob, 2*n)}
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
// A cluster kept as a record is still read again from the file it was read from, whose
// bytes are these.
func (res *fileResult) reused(f FileObjects) {
	res.objs = make([]Object, len(f.objs))
	for i, o := range f.objs {
		o.Source.File = res.name
		res.objs[i] = o
	}
	res.clusters = make([]clusterEntry, len(f.clusters))
	for i, e := range f.clusters {
		// A held object is shared, not copied: the entry's Source (this file's name) is
		// the one Get and Walk give with it.
		e.Source.File, e.at = res.name, e.at-f.objStart
		res.clusters[i] = e
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
		if f, ok := p.opts.Reuse(res.name, j.data); ok {
			res.reused(f)
			return
		}
	}
	if res.jsonErr = checkJSON(res.name, j.data); res.jsonErr != nil {
		return
	}
	b := &budget{shared: &p.total, read: &p.read, limit: runLimit(res.read)}
	opts := p.fileOptions(res)
	opts.intern = in
	if opts.Settle != nil {
		opts.Tolerate = func(apiVersion, kind, field string) bool {
			res.asked = append(res.asked, question{apiVersion, kind, field})
			return true
		}
	}
	res.objs, res.clusters, res.errs = decodeAndValidate(res.name, j.data, opts, b, p.tab)
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
		res.objs, res.clusters, res.errs = nil, nil, nil
	}
}

// fileOptions are the options a file is decoded with: from set when its clusters are kept
// as records (keepsRecords).
func (p *pipeline) fileOptions(res *fileResult) Options {
	opts := p.opts
	if keepsRecords(res.name, res.read, p.opts.ReadsEveryCluster) {
		opts.from = p.from
	}
	return opts
}

// decodeAndValidate decodes the documents of a file and validates each object; its
// TenantClusters are returned apart, as records when opts.from is set and the file has no
// error, else whole.
func decodeAndValidate(name string, data []byte, opts Options, b *budget, tab *pathTable) ([]Object, []clusterEntry, []error) {
	var errs []error
	opts.validate = true
	// The bytes are a Load's own (read for it, never changed after) and nothing decoded
	// keeps a piece of the text (the parser copies what it keeps), so the text is the bytes,
	// not a copy of every file.
	text := unsafe.String(unsafe.SliceData(data), len(data))
	objs, spans, err := decodeSegments(name, yamldoc.SplitDocuments(text), opts, b, tab)
	if err != nil {
		errs = append(errs, err)
	}
	for _, o := range objs {
		if err := Validate(o); err != nil {
			errs = append(errs, err)
		}
	}
	if rest, _ := splitNotObjects(errs); len(rest) > 0 {
		spans = nil // the Load fails: nothing is read again
	}
	kept, clusters := splitClusters(objs, spans, opts.from)
	return kept, clusters, errs
}

// splitClusters takes the TenantClusters out of objs (in place) as entries, each placed
// before the object that followed it: a record when spans has its document, else whole.
func splitClusters(objs []Object, spans map[int]*docSpan, from *rereader) ([]Object, []clusterEntry) {
	var clusters []clusterEntry
	kept := objs[:0]
	for _, o := range objs {
		if !isCluster(&o) {
			kept = append(kept, o)
			continue
		}
		if sp, ok := recordable(&o, spans); ok && from != nil {
			clusters = append(clusters, recordEntry(o, *sp, from, len(kept)))
		} else {
			clusters = append(clusters, wholeEntry(o, len(kept)))
		}
	}
	clear(objs[len(kept):]) // what moved to the entries is not held twice
	if len(kept) == 0 {
		kept = nil // a file of clusters alone holds no array for objects until the Load ends
	}
	return kept, clusters
}

// finish waits for the workers and takes their results in file order, with the reader's
// errors in their places.
func (p *pipeline) finish(set *Set, readErrs []error) []error {
	close(p.jobs)
	p.wg.Wait()
	var errs []error
	n, nc := 0, 0
	for _, res := range p.results {
		n, nc = n+len(res.objs), nc+len(res.clusters)
	}
	if n > 0 {
		set.Objects = make([]Object, 0, n) // a file decoded again below may add a few
	}
	if nc > 0 {
		set.Clusters.list = make([]clusterEntry, 0, nc)
	}
	if p.opts.Settle != nil {
		// The workers are done: what a file is decoded again with from here is settled.
		settle := p.opts.Settle
		p.opts.Tolerate, p.opts.Settle = nil, nil
		if slices.ContainsFunc(p.results, func(res *fileResult) bool { return len(res.asked) > 0 }) {
			p.opts.Tolerate = settle()
		}
		p.from.opts.Tolerate = p.opts.Tolerate
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
		case !res.settled(p.opts.Tolerate):
			// Settle refuses a field the file was decoded tolerating: decoded again with
			// its answer, from the bytes read, as a Load with that Tolerate decodes it.
			res.objs, res.clusters, res.errs = decodeAndValidate(res.name, res.keptData(), p.fileOptions(res), run, p.tab)
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
			res.objs, res.clusters, res.errs = decodeAndValidate(res.name, data, p.fileOptions(res), run, p.tab)
		}
		for _, e := range res.clusters {
			e.at += len(set.Objects)
			set.Clusters.list = append(set.Clusters.list, e)
		}
		set.Objects = append(set.Objects, res.objs...)
		errs = append(errs, res.errs...)
	}
	return append(errs, readErrs[next:]...)
}
