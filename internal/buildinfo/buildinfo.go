// Package buildinfo is what a binary knows about its own build: the version, commit and
// date stamped at build time with -ldflags -X (the Makefile and .goreleaser.yaml do), else
// what the Go toolchain recorded (the module version of `go install ...@vX.Y.Z`, the VCS
// revision and time of a build inside a checkout), else "dev" and "unknown".
//
//	go build -ldflags "-X github.com/butlerdotdev/butler-toolkit/internal/buildinfo.Version=v1.2.3
//	  -X github.com/butlerdotdev/butler-toolkit/internal/buildinfo.Commit=abc1234
//	  -X github.com/butlerdotdev/butler-toolkit/internal/buildinfo.Date=2025-01-02T03:04:05Z"
//
// Nothing here runs at init time: Get reads the build information when asked.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Stamped at build time with -ldflags -X; the defaults mean "not stamped".
var (
	Version = "dev"
	Commit  = "unknown"
	Date    = "unknown"
)

// Info is the build of the running binary.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	Modified  bool   `json:"modified,omitempty"` // built from a work tree with uncommitted changes
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// Get returns the build information: stamped values first, then the toolchain's.
func Get() Info {
	info := Info{
		Version:   Version,
		Commit:    Commit,
		Date:      Date,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
	bi, ok := readBuildInfo()
	if !ok {
		return info
	}
	if info.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		info.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if info.Commit == "unknown" && s.Value != "" {
				info.Commit = s.Value
			}
		case "vcs.time":
			if info.Date == "unknown" && s.Value != "" {
				info.Date = s.Value
			}
		case "vcs.modified":
			if Commit == "unknown" {
				info.Modified = s.Value == "true"
			}
		}
	}
	return info
}
