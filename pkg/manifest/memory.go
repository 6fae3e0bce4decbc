package manifest

import "errors"

// File is a manifest held in memory, such as a blob read from a git tree.
type File struct {
	// Name is the path it is reported under.
	Name string
	Data []byte
}

// LoadFiles is LoadWith over files already read (their names are not opened): each is
// decoded strictly and validated, duplicates are refused, and all problems are returned
// together, the Set nil then. The caller bounds what it read.
func LoadFiles(files []File, opts Options) (*Set, error) {
	set := &Set{}
	budget, tab := newBudget(), newPathTable()
	opts.validate = true
	var errs []error
	for _, f := range files {
		objs, err := decode(f.Name, f.Data, opts, budget, tab)
		if err != nil {
			errs = append(errs, err)
		}
		for _, o := range objs {
			if err := Validate(o); err != nil {
				errs = append(errs, err)
			}
		}
		for _, o := range objs {
			set.add(o) // held whole: there is no file to read a cluster again from
		}
	}
	errs, set.NotObjects = splitNotObjects(errs)
	errs = append(errs, set.duplicates()...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// ManifestFile reports whether a file of a directory is one Load reads (by its name).
func ManifestFile(name string) bool { return manifestFile(name) }
