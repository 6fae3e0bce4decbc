// Command gendocs writes the generated documentation and completion scripts: the markdown
// reference (docs/reference), the man pages (docs/man) and the shell completion scripts
// (completions/), from the command trees of butlerctl and butleradm. Run it with
// `make docs` after changing a command; a test fails until the files are current.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/butlerdotdev/butler-toolkit/internal/docgen"
)

func main() {
	root := flag.String("root", ".", "repository root to write into")
	flag.Parse()
	if err := docgen.Generate(*root); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}
