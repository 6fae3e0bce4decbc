package schema

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/yamldoc"
)

// enter records the line of a step below the current path and makes it current; the
// caller restores the returned path with leave when done with the step.
func (c *converter) enter(s yamldoc.PathStep, p *field.Path, line int) int32 {
	prev := c.pid
	if c.lines != nil {
		s.Parent = prev
		c.pid = c.lines.Table().ID(s, p)
		c.lines.Add(c.pid, line)
	}
	return prev
}

func (c *converter) leave(prev int32) { c.pid = prev }

// down is enter for fill: it returns the step's path as well, the table's shared one when
// lines are recorded (else a new one), and the path to restore with leave.
func (c *converter) down(s yamldoc.PathStep, p *field.Path, line int) (*field.Path, int32) {
	mk := func() *field.Path {
		switch s.Kind {
		case yamldoc.StepChild:
			return child(p, s.Name)
		case yamldoc.StepKey:
			return key(p, s.Name)
		}
		return p.Index(s.Index)
	}
	prev := c.pid
	if c.lines == nil {
		return mk(), prev
	}
	s.Parent = prev
	id, sp := c.lines.Table().Step(s, mk)
	c.pid = id
	c.lines.Add(id, line)
	return sp, prev
}
