//go:build race

package webhook_test

// raceEnabled: the race detector multiplies memory and slows the server, so the memory
// bound is not measured under it.
const raceEnabled = true
