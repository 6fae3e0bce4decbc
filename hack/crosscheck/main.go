// Command crosscheck type-checks packages for other systems (internal/crosscheck): `make
// cross` runs it on the binaries' mains for every system the release ships.
//
//	crosscheck -targets windows/amd64,darwin/arm64 ./cmd/butlerctl ./cmd/butleradm
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/crosscheck"
)

func main() {
	targets := flag.String("targets", "windows/amd64,darwin/arm64", "GOOS/GOARCH pairs, comma-separated")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up after this long (a hang guard)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "crosscheck: no packages (crosscheck [-targets os/arch,...] PACKAGE...)")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	failed := false
	for _, t := range strings.Split(*targets, ",") {
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok || goos == "" || goarch == "" {
			fmt.Fprintf(os.Stderr, "crosscheck: -targets: %q is not GOOS/GOARCH\n", t)
			os.Exit(2)
		}
		res, err := crosscheck.Check(ctx, ".", goos, goarch, flag.Args()...)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, e := range res.Errors {
			fmt.Fprintf(os.Stderr, "%s: %s\n", t, e)
		}
		if res.Dropped > 0 {
			fmt.Fprintf(os.Stderr, "%s: and %d more errors\n", t, res.Dropped)
		}
		if len(res.Errors) > 0 {
			failed = true
			continue
		}
		fmt.Printf("crosscheck: %s: %d packages type-check\n", t, res.Packages)
	}
	if failed {
		os.Exit(1)
	}
}
