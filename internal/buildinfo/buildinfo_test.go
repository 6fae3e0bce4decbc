package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func withStamp(t *testing.T, version, commit, date string, bi *debug.BuildInfo) {
	t.Helper()
	oldV, oldC, oldD, oldR := Version, Commit, Date, readBuildInfo
	t.Cleanup(func() { Version, Commit, Date, readBuildInfo = oldV, oldC, oldD, oldR })
	Version, Commit, Date = version, commit, date
	readBuildInfo = func() (*debug.BuildInfo, bool) { return bi, bi != nil }
}

func TestStampedWins(t *testing.T) {
	withStamp(t, "v1.2.3", "abc1234", "2025-01-02T03:04:05Z", &debug.BuildInfo{
		Main:     debug.Module{Version: "v9.9.9"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "fff"}, {Key: "vcs.time", Value: "1999"}, {Key: "vcs.modified", Value: "true"}},
	})
	got := Get()
	want := Info{Version: "v1.2.3", Commit: "abc1234", Date: "2025-01-02T03:04:05Z", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if got != want {
		t.Fatalf("Get() = %+v, want %+v", got, want)
	}
}

func TestFallsBackToVCS(t *testing.T) {
	withStamp(t, "dev", "unknown", "unknown", &debug.BuildInfo{
		Main:     debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2025-06-07T08:09:10Z"}, {Key: "vcs.modified", Value: "true"}},
	})
	got := Get()
	if got.Version != "dev" || got.Commit != "0123abcd" || got.Date != "2025-06-07T08:09:10Z" || !got.Modified {
		t.Fatalf("Get() = %+v", got)
	}
}

func TestModuleVersionFromGoInstall(t *testing.T) {
	withStamp(t, "dev", "unknown", "unknown", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}})
	if got := Get(); got.Version != "v0.4.0" || got.Commit != "unknown" || got.Date != "unknown" {
		t.Fatalf("Get() = %+v", got)
	}
}

func TestNoBuildInfo(t *testing.T) {
	withStamp(t, "dev", "unknown", "unknown", nil)
	if got := Get(); got.Version != "dev" || got.Commit != "unknown" || got.Date != "unknown" {
		t.Fatalf("Get() = %+v", got)
	}
}
