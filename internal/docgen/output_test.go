package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// TestOutputDocMatchesCommands holds docs/output.md to the formats each command declares:
// every command that prints has a section listing exactly its formats, and every section
// names commands that exist and print.
func TestOutputDocMatchesCommands(t *testing.T) {
	declared := map[string]string{}
	for _, name := range Names {
		var walk func(*cobra.Command)
		walk = func(c *cobra.Command) {
			if f, ok := c.Annotations[output.AnnotationFormats]; ok {
				declared[c.CommandPath()] = strings.ReplaceAll(f, ",", ", ")
			}
			for _, s := range c.Commands() {
				walk(s)
			}
		}
		walk(NewTree(name))
	}
	documented := parseOutputDoc(t, filepath.Join("..", "..", "docs", "output.md"))
	var problems []string
	for path, formats := range declared {
		switch doc, ok := documented[path]; {
		case !ok:
			problems = append(problems, path+": prints, but docs/output.md has no section for it")
		case doc != formats:
			problems = append(problems, path+": declares "+formats+"; docs/output.md says "+doc)
		}
	}
	for path := range documented {
		if _, ok := declared[path]; !ok {
			problems = append(problems, path+": has a section in docs/output.md but declares no output formats (or does not exist)")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

var (
	sectionRe = regexp.MustCompile("^## (`butler(ctl|adm) [^`]+`(, )?)+$")
	pathRe    = regexp.MustCompile("`(butler(?:ctl|adm) [^`]+)`")
)

// parseOutputDoc returns each documented command path's "Formats:" line.
func parseOutputDoc(t *testing.T, path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var current []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			current = nil
			if sectionRe.MatchString(line) {
				for _, m := range pathRe.FindAllStringSubmatch(line, -1) {
					current = append(current, m[1])
				}
			}
			continue
		}
		if f, ok := strings.CutPrefix(line, "Formats: "); ok && current != nil {
			for _, p := range current {
				if _, dup := out[p]; dup {
					t.Errorf("docs/output.md: %s has two sections", p)
				}
				out[p] = strings.TrimSpace(f)
			}
			current = nil
		}
	}
	return out
}

// TestCommandsWithoutOutput: the commands that declare no output formats, which the root
// refuses -o for, are exactly those docs/output.md lists as printing nothing to format.
func TestCommandsWithoutOutput(t *testing.T) {
	var none []string
	for _, name := range Names {
		var walk func(*cobra.Command)
		walk = func(c *cobra.Command) {
			_, declares := c.Annotations[output.AnnotationFormats]
			if c.Runnable() && !c.Hidden && c.Name() != "help" && !declares {
				none = append(none, c.CommandPath())
			}
			for _, s := range c.Commands() {
				walk(s)
			}
		}
		walk(NewTree(name))
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "output.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Commands that print nothing to format\n")
	if !ok {
		t.Fatal("docs/output.md has no section \"Commands that print nothing to format\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var documented []string
	for _, m := range pathRe.FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	sort.Strings(none)
	sort.Strings(documented)
	if strings.Join(none, "\n") != strings.Join(documented, "\n") {
		t.Errorf("commands without output formats:\n%s\ndocs/output.md lists:\n%s", strings.Join(none, "\n"), strings.Join(documented, "\n"))
	}
}
