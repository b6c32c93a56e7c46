package model

import "fmt"

// KernelAtLeast reports whether a kernel release ("6.1.0-28-amd64") is
// major.minor or later: the kernel's rules changed between versions, and
// a verdict says what the host's kernel does. An unreadable release is
// not.
func KernelAtLeast(release string, major, minor int) bool {
	var ma, mi int
	if n, _ := fmt.Sscanf(release, "%d.%d", &ma, &mi); n < 2 {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}
