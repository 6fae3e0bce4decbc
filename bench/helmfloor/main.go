// Command helmfloor is the floor of bench/charts.sh: Helm's own library rendering the same
// releases, as `helm template CHART -f VALUES` renders each client-side (the chart read
// by loader.Load, the values file by chartutil.ReadValuesFile, both merged by
// ToRenderValues, the templates run by engine.Render and their output split by
// releaseutil.SplitManifests), the releases on all cores, and nothing else: nothing is
// decoded or judged. Two things it does as `helm template` does, not as the check does:
// it loads the chart for each release (the check loads each chart once), and renders with
// the library's default capabilities (Kubernetes v1.20; the check's are its libraries'
// version, which bench/charts.sh's charts never read). Loading a small chart costs little
// beside rendering it, so the check cannot come much under this: its figures are quoted
// against it.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: helmfloor CHART-DIR VALUES-FILE...")
		os.Exit(2)
	}
	dir, values := os.Args[1], os.Args[2:]
	jobs := make(chan string)
	var docs atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				n, err := render(dir, f)
				if err != nil {
					mu.Lock()
					failed = fmt.Errorf("%s: %w", f, err)
					mu.Unlock()
				}
				docs.Add(int64(n))
			}
		}()
	}
	for _, f := range values {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	if failed != nil {
		fmt.Fprintln(os.Stderr, "helmfloor:", failed)
		os.Exit(1)
	}
	fmt.Printf("%d releases, %d documents\n", len(values), docs.Load())
}

// render renders the chart with one values file, as one release; it returns how many
// documents the render wrote.
func render(dir, valuesFile string) (int, error) {
	c, err := loader.Load(dir)
	if err != nil {
		return 0, err
	}
	vals, err := chartutil.ReadValuesFile(valuesFile)
	if err != nil {
		return 0, err
	}
	if err := chartutil.ProcessDependenciesWithMerge(c, vals); err != nil {
		return 0, err
	}
	opts := chartutil.ReleaseOptions{Name: "floor", Namespace: "default", Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(c, vals, opts, chartutil.DefaultCapabilities)
	if err != nil {
		return 0, err
	}
	files, err := engine.Engine{}.Render(c, top)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, text := range files {
		n += len(releaseutil.SplitManifests(text))
	}
	return n, nil
}
