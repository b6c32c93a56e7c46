package cli

import (
	"os"
	"runtime"
	"runtime/debug"
)

// longRunning readies a process that stays up (the console, a replay, the
// agent, the exporter): one P from its start, so a wake-up wakes no idle
// thread (set later, it waits out a GC), and a collection at GOGC 50
// unless the user set GOGC: a heap twice the live one, not Go's 4 MB
// floor (the exporter's live heap is 0.5 MB), is most of their peak RSS.
func longRunning() {
	runtime.GOMAXPROCS(1)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}
