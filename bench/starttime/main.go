// Command starttime is bench/startup.sh's timer when hyperfine is missing: it starts each
// command RUNS times after WARMUP runs, in turn (A B C A B C … so a drift of the machine's
// speed falls on all alike), and prints each command's median wall time in milliseconds,
// one a line. A shell loop timed with date adds two process starts of its own to every run,
// which inflates the smaller command's figure and so the ratio.
//
//	starttime -runs 50 -warmup 5 'butlerctl version' 'kubectl version --client'
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("runs", 50, "timed runs of each command")
	warmup := flag.Int("warmup", 5, "untimed runs of each command first")
	flag.Parse()
	if flag.NArg() == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: starttime [-runs N] [-warmup N] 'COMMAND ARG…' …")
		os.Exit(2)
	}
	cmds := make([][]string, flag.NArg())
	for i, c := range flag.Args() {
		cmds[i] = strings.Fields(c)
		if len(cmds[i]) == 0 {
			fmt.Fprintln(os.Stderr, "starttime: an empty command")
			os.Exit(2)
		}
	}
	times := make([][]time.Duration, len(cmds))
	for r := 0; r < *warmup+*runs; r++ {
		for i, argv := range cmds {
			d, err := run(argv)
			if err != nil {
				fmt.Fprintf(os.Stderr, "starttime: %s: %v\n", strings.Join(argv, " "), err)
				os.Exit(1)
			}
			if r >= *warmup {
				times[i] = append(times[i], d)
			}
		}
	}
	for _, t := range times {
		slices.Sort(t)
		m := t[len(t)/2]
		if len(t)%2 == 0 {
			m = (t[len(t)/2-1] + m) / 2
		}
		fmt.Printf("%.2f\n", float64(m)/float64(time.Millisecond))
	}
}

// run times one start of argv, from just before the fork to just after the child is reaped;
// its output goes to /dev/null (exec's nil streams).
func run(argv []string) (time.Duration, error) {
	c := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	err := c.Run()
	return time.Since(start), err
}
