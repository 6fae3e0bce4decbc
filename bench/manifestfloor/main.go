// Command manifestfloor is the floor of bench/manifests.sh: it reads every .yaml file
// below a directory and parses each document into a yaml.v3 node tree on all cores, and
// does nothing else. No loader can read the same tree faster than this without a faster
// YAML parser, so the loader's time is quoted as a ratio to it.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: manifestfloor DIR")
		os.Exit(2)
	}
	var files []string
	err := filepath.WalkDir(os.Args[1], func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var next, docs atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				f, err := os.Open(files[i])
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					failed.Store(true)
					return
				}
				dec := yaml.NewDecoder(f)
				for {
					var n yaml.Node
					if err := dec.Decode(&n); errors.Is(err, io.EOF) {
						break
					} else if err != nil {
						fmt.Fprintln(os.Stderr, files[i], err)
						failed.Store(true)
						break
					}
					docs.Add(1)
				}
				f.Close()
			}
		}()
	}
	wg.Wait()
	fmt.Printf("%d files, %d documents\n", len(files), docs.Load())
	if failed.Load() {
		os.Exit(1)
	}
}
