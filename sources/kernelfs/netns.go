package kernelfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// NetnsInode is the namespace inode of a /proc/PID/ns/net link.
func NetnsInode(link string) (uint64, error) {
	target, err := os.Readlink(link)
	if err != nil {
		return 0, err
	}
	s, ok := strings.CutPrefix(target, "net:[")
	if !ok {
		return 0, fmt.Errorf("%s: not a network namespace: %q", link, target)
	}
	return strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64)
}
