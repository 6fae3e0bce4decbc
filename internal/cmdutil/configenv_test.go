package cmdutil

import (
	"bytes"
	"testing"

	"github.com/spf13/cobra"
)

func TestWarnUnknownEnv(t *testing.T) {
	root := &cobra.Command{Use: "butlerctl"}
	root.PersistentFlags().String("team", "", "")
	sub := &cobra.Command{Use: "scale"}
	sub.Flags().Int32("workers", 0, "")
	sub.Flags().String("request-timeout", "", "")
	root.AddCommand(sub)
	var out bytes.Buffer
	warnUnknownEnv(root, []string{
		"BUTLER_TEAM=payments", "BUTLER_WORKERS=3", "BUTLER_REQUEST_TIMEOUT=1m", // flags of any command
		"BUTLER_HINTS=1", "BUTLER_EMPTY=", "PATH=/bin", // settings, empty ones, others
		"BUTLER_CLUSTER_NAME=ci-x", "BUTLER_GORELEASER=/x", "BUTLER_BENCH_RUNS=5", // cluster run's, the repository's tooling
		"BUTLER_WORKRES=3", "BUTLER_ZZZ=1",
	}, &out)
	want := "Warning: environment variable BUTLER_WORKRES is ignored (did you mean BUTLER_WORKERS?)\n" +
		"Warning: environment variable BUTLER_ZZZ is ignored (the variables are BUTLER_ and a flag's name, such as BUTLER_TEAM)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
