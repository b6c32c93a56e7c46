package tune

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Settle writes sysctls of the network namespace the calling thread is
// in (a lab's scenario, inside its own namespace): a knob tablefull
// tunes through Apply, checked and read back; any other (a hold
// tablefull does not tune, as the established timeout) only a number
// under net.netfilter, net.core or net.ipv4, written and read back. It
// never writes a global knob: those go through Apply from the host.
func (t *Sysctls) Settle(values map[string]string) error {
	var knobs []tuning.Change
	others := map[string]string{}
	for key, v := range values { // every setting checked before any is written
		spec, known := tuning.Spec(key)
		switch {
		case known && spec.Global:
			return fmt.Errorf("%s: a global knob, written from the host", key)
		case known:
			knobs = append(knobs, tuning.Change{Key: key, Proposed: v})
		default:
			if err := checkOther(key, v); err != nil {
				return err
			}
			others[key] = v
		}
	}
	if _, err := tuning.CheckChanges(knobs); err != nil {
		return err
	}
	for key, v := range others {
		if err := t.settleOther(key, v); err != nil {
			return err
		}
	}
	if len(knobs) == 0 {
		return nil
	}
	results, err := t.Apply(knobs, 0)
	if err != nil {
		return err
	}
	for _, r := range results {
		if !r.Verified {
			return fmt.Errorf("%s reads back %q, not %q", r.Key, r.After, r.Wanted)
		}
	}
	return nil
}

// checkOther checks a sysctl that is not a knob: a number, under the
// network's sysctls only.
func checkOther(key, v string) error {
	if !strings.HasPrefix(key, "net.netfilter.") && !strings.HasPrefix(key, "net.core.") && !strings.HasPrefix(key, "net.ipv4.") || strings.Contains(key, "/") {
		return fmt.Errorf("%s: not a network sysctl", key)
	}
	if _, err := strconv.ParseUint(v, 10, 64); err != nil {
		return fmt.Errorf("%s = %q: %w", key, v, err)
	}
	return nil
}

// settleOther writes a checked sysctl that is not a knob and reads it
// back.
func (t *Sysctls) settleOther(key, v string) error {
	path := kernelfs.SysctlPath(t.Proc, key)
	if err := os.WriteFile(path, []byte(v+"\n"), 0); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	if got, err := kernelfs.ReadSysctl(path); err != nil || got != v {
		return fmt.Errorf("%s reads back %q, not %q: %v", key, got, v, err)
	}
	return nil
}
