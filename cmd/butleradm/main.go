// Command butleradm; see internal/cli/butleradm.
package main

import (
	"os"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/butleradm"
)

func main() { os.Exit(butleradm.Main()) }
