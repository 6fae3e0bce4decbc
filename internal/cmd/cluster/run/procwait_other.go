//go:build !linux

package run

// awaitExit cannot wait without reaping here: the group is ended after Wait instead.
func awaitExit(int) bool { return false }
