package clitest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Descendants are the PIDs of every process below pid, read from
// /proc's parent links: a test ends what it started by PID, never by a
// pattern that could match another user's processes.
func Descendants(pid int) []int {
	parent := map[int][]int{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		child, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// the command may hold spaces and parentheses: the fields
		// follow the last ')'
		_, rest, ok := strings.Cut(string(b[strings.LastIndexByte(string(b), ')')+1:]), " ")
		if f := strings.Fields(rest); ok && len(f) > 1 {
			if ppid, err := strconv.Atoi(f[1]); err == nil {
				parent[ppid] = append(parent[ppid], child)
			}
		}
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range parent[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// ProcsUnder are the descendants of root whose command line match takes
// (its arguments as the kernel holds them): what a test started, found
// by its tree, never by a pattern over every process of the machine.
func ProcsUnder(root int, match func(argv []string) bool) []int {
	var out []int
	for _, pid := range Descendants(root) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err == nil && match(strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")) {
			out = append(out, pid)
		}
	}
	return out
}

// SignalAll sends sig to every pid.
func SignalAll(pids []int, sig syscall.Signal) {
	for _, p := range pids {
		syscall.Kill(p, sig)
	}
}

// KillTree kills pid's descendants, then pid.
func KillTree(pid int) {
	for _, c := range Descendants(pid) {
		syscall.Kill(c, syscall.SIGKILL)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}
