package lab

import (
	"fmt"
	"strconv"

	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/tune"
)

// setGlobal writes a global knob through tune's one writer of knobs
// (tune.Sysctls: the value checked, written, read back). The lab lowers
// the cap knowingly, under the count if it must: no count is given.
func setGlobal(p Paths, g Global, v string) error {
	if _, err := strconv.ParseUint(v, 10, 64); err != nil {
		return fmt.Errorf("%s = %q: %w", g, v, err)
	}
	w := tune.NewSysctls(kernelfs.Roots{Proc: p.Proc, Sys: p.Sys})
	if _, err := w.Apply([]tuning.Change{{Key: string(g), Proposed: v}}, 0); err != nil {
		return fmt.Errorf("set %s to %s: %w", g, v, err)
	}
	return nil
}
