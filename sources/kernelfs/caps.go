package kernelfs

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Capability numbers (linux/capability.h) of the parts that need one.
const (
	CapNetAdmin  = 12
	CapSysPtrace = 19
	CapSysAdmin  = 21
	CapSyslog    = 34
	CapPerfmon   = 38
	CapBPF       = 39
)

// EffectiveCaps is the effective capability set of this process (CapEff
// in proc's self/status).
func EffectiveCaps(proc string) (uint64, error) {
	b, err := ReadBounded(filepath.Join(proc, "self", "status"), 64<<10)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, fmt.Errorf("%s: no CapEff", filepath.Join(proc, "self", "status"))
}
