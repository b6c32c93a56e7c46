package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// statusField is a kB field of pid's /proc status, named with its colon
// ("VmHWM:"); 0 when unread.
func statusField(pid int, name string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, name) {
			v, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return v
		}
	}
	return 0
}
