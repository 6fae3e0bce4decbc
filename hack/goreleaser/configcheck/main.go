// Command configcheck reads goreleaser configuration files as goreleaser reads them, with
// goreleaser's own loader (pkg/config: a strict YAML decoding into its Project type, so a
// misspelt or unknown key, or a value of the wrong type, is an error), and refuses any
// version but 2. It costs a small part of goreleaser's build (about 190 packages against
// 1,500), so `make test` checks the release configuration on every run; `goreleaser check`
// itself (which also applies the defaults of every pipe) runs in `make release-check` and
// where releases are made.
//
//	configcheck FILE...
//
// Exit status 1 names each file that failed and why.
package main

import (
	"fmt"
	"os"

	"github.com/goreleaser/goreleaser/v2/pkg/config"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: configcheck FILE...")
		os.Exit(2)
	}
	failed := false
	for _, f := range os.Args[1:] {
		p, err := config.Load(f)
		if err == nil && p.Version != 2 {
			err = fmt.Errorf("version: %d, goreleaser reads version 2", p.Version)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", f, err)
			failed = true
			continue
		}
		fmt.Printf("%s: loads as goreleaser reads it\n", f)
	}
	if failed {
		os.Exit(1)
	}
}
