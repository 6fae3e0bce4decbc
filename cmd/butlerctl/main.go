// Command butlerctl; see internal/cli/butlerctl.
package main

import (
	"os"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/butlerctl"
)

func main() { os.Exit(butlerctl.Main()) }
