package manifest

import "iter"

// This file is what reads a Set's objects and clusters together, in the order read.

// places calls fn with the places of the set's objects in the order read: a cluster
// (cluster true, Clusters' c, before Objects' i) or another object (Objects' i, after
// Clusters' c-1). Every walk of the two together is this one.
func (s *Set) places(fn func(cluster bool, i, c int)) {
	c := 0
	for i := 0; i <= len(s.Objects); i++ {
		for ; c < len(s.Clusters.list) && s.Clusters.list[c].at <= i; c++ {
			fn(true, i, c)
		}
		if i < len(s.Objects) {
			fn(false, i, c)
		}
	}
}

// inOrder calls fn with a Ref of every object of the set in the order read, its clusters
// among them (named alike whatever the Load kept of them).
func (s *Set) inOrder(fn func(r Ref)) {
	s.places(func(cluster bool, i, c int) {
		if cluster {
			fn(s.Clusters.list[c].ref())
		} else {
			fn(refOf(&s.Objects[i]))
		}
	})
}

func refOf(o *Object) Ref {
	return Ref{Source: o.Source, APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, Namespace: o.Namespace}
}

// All is every object of the set in the order read, the clusters whole (read again when
// the Load kept records of them): for a renderer that takes a tree's objects as a whole.
func (s *Set) All() ([]Object, error) {
	out := make([]Object, 0, len(s.Objects)+s.Clusters.Len())
	err := s.Walk(func(o *Object) error {
		out = append(out, *o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// NewSet is a set of objs, in their order: the TenantClusters (typed) in Clusters, held
// whole. Duplicates are not refused (Duplicates lists them).
func NewSet(objs []Object) *Set {
	s := &Set{}
	for _, o := range objs {
		s.add(o)
	}
	return s
}

// Merge appends the objects and clusters of other to s, after s's own.
func (s *Set) Merge(other *Set) {
	for _, e := range other.Clusters.list {
		e.at += len(s.Objects)
		s.Clusters.list = append(s.Clusters.list, e)
	}
	s.Objects = append(s.Objects, other.Objects...)
}

// FileObjects are the objects a Set read from one file, its clusters as the Load kept
// them: what Options.Reuse gives a later Load for a file of the same bytes.
type FileObjects struct {
	objs []Object
	// clusters place themselves (clusterEntry.at) among the set's Objects: objStart is
	// where objs begins there. A piece of the set's, like objs, not a copy.
	clusters []clusterEntry
	objStart int
}

// Len is the number of objects, clusters included.
func (f FileObjects) Len() int { return len(f.objs) + len(f.clusters) }

// ByFile groups the set's objects by file (as key names it), clusters included, for
// Options.Reuse. A file's objects and clusters, which a Load gives one after another, are
// pieces of the set's, not copies; the Load that reuses them copies what it takes.
func (s *Set) ByFile(key func(file string) string) map[string]FileObjects {
	by := map[string]FileObjects{}
	var cur FileObjects
	file, start, cstart, open := "", 0, 0, false
	flush := func(end, cend int) {
		if !open {
			return
		}
		cur.objs, cur.objStart = s.Objects[start:end:end], start
		cur.clusters = s.Clusters.list[cstart:cend:cend]
		k := key(file)
		if prev, ok := by[k]; ok {
			prev.merge(cur)
			by[k] = prev
		} else {
			by[k] = cur
		}
		cur, open = FileObjects{}, false
	}
	// starts opens the group of name at object i and cluster c, closing the one before
	// when it is another file's.
	starts := func(name string, i, c int) {
		if !open || name != file {
			flush(i, c)
			file, start, cstart, open = name, i, c, true
		}
	}
	s.places(func(cluster bool, i, c int) {
		if cluster {
			starts(s.Clusters.list[c].Source.File, i, c)
		} else {
			starts(s.Objects[i].Source.File, i, c)
		}
	})
	flush(len(s.Objects), len(s.Clusters.list))
	return by
}

// merge appends g, another piece of the same file, to f: copies, placed among f's objects.
func (f *FileObjects) merge(g FileObjects) {
	cs := make([]clusterEntry, 0, len(f.clusters)+len(g.clusters))
	for _, e := range f.clusters {
		e.at -= f.objStart
		cs = append(cs, e)
	}
	for _, e := range g.clusters {
		e.at += len(f.objs) - g.objStart
		cs = append(cs, e)
	}
	f.clusters, f.objStart = cs, 0
	f.objs = append(f.objs[:len(f.objs):len(f.objs)], g.objs...)
}

// Ref names an object of a set, a cluster included: where it was read and what it is.
type Ref struct {
	Source                            Source
	APIVersion, Kind, Name, Namespace string
}

// Refs names every object of the set in the order read, its clusters among them.
func (s *Set) Refs() iter.Seq[Ref] {
	return func(yield func(Ref) bool) {
		stop := false
		s.inOrder(func(r Ref) {
			if !stop && !yield(r) {
				stop = true
			}
		})
	}
}

// ReplaceFile makes objs the objects of file (the file decoded again after a write), their
// clusters held whole. Whatever was kept of the file's clusters before, nothing is read
// again from where its documents were. An edit that leaves the file's documents in the
// same order of clusters and other objects (any in-place write) puts them in their
// places; otherwise the file's objects go and objs come after the others.
func (s *Set) ReplaceFile(file string, objs []Object) {
	if s.replaceInPlace(file, objs) {
		return
	}
	kept := make([]Object, 0, len(s.Objects))
	var clusters []clusterEntry
	s.places(func(cluster bool, i, c int) {
		switch {
		case cluster && s.Clusters.list[c].Source.File != file:
			e := s.Clusters.list[c]
			e.at = len(kept)
			clusters = append(clusters, e)
		case !cluster && s.Objects[i].Source.File != file:
			kept = append(kept, s.Objects[i])
		}
	})
	s.Objects, s.Clusters.list = kept, clusters
	for _, o := range objs {
		s.add(o)
	}
}

// Walk calls fn with every object of the set in the order read, until fn returns an
// error: its Objects (the set's own) and its clusters whole (the set's own when held, else
// read again, ahead on every core, and the caller's). An error reading a cluster again is
// returned.
func (s *Set) Walk(fn func(o *Object) error) error {
	order := make([]int, s.Clusters.Len())
	for i := range order {
		order[i] = i
	}
	next := 0
	objects := func(to int) error {
		for ; next < to; next++ {
			if err := fn(&s.Objects[next]); err != nil {
				return err
			}
		}
		return nil
	}
	err := s.Clusters.EachOf(order, func(i int, o Object, err error) error {
		if err != nil {
			return err
		}
		e := &s.Clusters.list[i]
		if err := objects(e.at); err != nil {
			return err
		}
		if e.obj != nil && e.obj.Source == e.Source {
			return fn(e.obj)
		}
		return fn(&o)
	})
	if err != nil {
		return err
	}
	return objects(len(s.Objects))
}

// replaceInPlace is ReplaceFile for objs whose clusters and other objects come in the
// order the file's did: each takes the place of the one it replaces, without copying the
// set (env migrate writes cluster after cluster, and a copy of a set of 10,000 clusters
// each time made that quadratic). It reports whether it could.
func (s *Set) replaceInPlace(file string, objs []Object) bool {
	var places []int // the file's, in order: an index in Objects, or -1-c for Clusters[c]
	s.places(func(cluster bool, i, c int) {
		switch {
		case cluster && s.Clusters.list[c].Source.File == file:
			places = append(places, -1-c)
		case !cluster && s.Objects[i].Source.File == file:
			places = append(places, i)
		}
	})
	if len(places) != len(objs) {
		return false
	}
	for k, p := range places {
		if isCluster(&objs[k]) != (p < 0) {
			return false
		}
	}
	for k, p := range places {
		if p < 0 {
			e := &s.Clusters.list[-1-p]
			*e = wholeEntry(objs[k], e.at)
		} else {
			s.Objects[p] = objs[k]
		}
	}
	return true
}
