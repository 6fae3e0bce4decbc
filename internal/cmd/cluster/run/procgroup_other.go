//go:build !unix

package run

import (
	"io"
	"os"
	"os/exec"
)

// group is COMMAND alone where there are no process groups.
type group struct{ p *os.Process }

func inGroup(cmd *exec.Cmd, _ io.Reader) (*group, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &group{p: cmd.Process}, nil
}

func (g *group) signal(s os.Signal) { _ = g.p.Signal(s) }

func (g *group) kill() { _ = g.p.Kill() }

func (g *group) ended() {}
