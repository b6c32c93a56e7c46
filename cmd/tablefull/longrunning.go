package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// longRunningGCPercent is the heap growth a process that stays up allows
// before a collection (Go's default is 100, with a 4 MB floor). The
// exporter's live heap is under 1 MB, and garbage grew it to 4 MB between
// collections; a console holding an hour of a 384-CPU host (21 MB live)
// peaked at 66 MB RSS, 54 MB at 50. At 50 the floor is 2 MB, and a
// collection of the small heaps costs under a millisecond.
const longRunningGCPercent = 50

// longRunning readies a process that stays up (the console, a replay, the
// agent, the exporter): one P from its start, so a wake-up wakes no idle
// thread (set later, it waits out a GC: 70 ms before a console's first
// frame), and collections at longRunningGCPercent unless the user set
// GOGC.
func longRunning() {
	runtime.GOMAXPROCS(1)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(longRunningGCPercent)
	}
}
