// Command kubectl-butler is the kubectl plugin; see internal/cli/kubectlbutler.
package main

import (
	"os"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/kubectlbutler"
)

func main() { os.Exit(kubectlbutler.Main(os.Args[1:])) }
