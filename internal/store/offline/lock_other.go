//go:build !unix

package offline

import "os"

// tryLock: only Unix systems lock the manifests (flock). Elsewhere runs are not
// serialised; new files are still created exclusively.
func tryLock(*os.File, bool) (bool, error) { return true, nil }

func unlock(*os.File) {}
