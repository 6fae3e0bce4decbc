// Command manifestgen writes the tree of bench/manifests.sh: TenantClusters in teams, one
// file each, with their Teams and ProviderConfig (pkg/manifest/manifesttest).
//
//	go run ./bench/manifestgen -dir /tmp/tree -clusters 10000 -teams 20
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

func main() {
	dir := flag.String("dir", "", "directory to write the tree to (created)")
	clusters := flag.Int("clusters", 10000, "number of TenantClusters")
	teams := flag.Int("teams", 20, "number of Teams")
	flag.Parse()
	if *dir == "" || *teams < 1 || *clusters < 0 {
		fmt.Fprintln(os.Stderr, "usage: manifestgen -dir DIR [-clusters N] [-teams N]")
		os.Exit(2)
	}
	t, err := manifesttest.Generate(*dir, *teams, *clusters)
	if err != nil {
		fmt.Fprintln(os.Stderr, "manifestgen:", err)
		os.Exit(1)
	}
	fmt.Printf("%d files, %d bytes\n", t.Files, t.Bytes)
}
