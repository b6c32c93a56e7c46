package lab

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// FixMax is the cap --fix-after raises nf_conntrack_max to: the
// write-up's fix.
const FixMax = 16384

// FixAfter raises nf_conntrack_max to FixMax once d has passed (0: never),
// from the console as Headless does. The returned wait stops a raise not
// yet started, or waits for one under way (the lab restores the host only
// after it), and returns the raise's error.
func (l *Lab) FixAfter(d time.Duration) (wait func() error) {
	if d <= 0 {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	t := time.AfterFunc(d, func() {
		_, err := l.Fix(FixMax)
		done <- err
	})
	return func() error {
		if t.Stop() {
			return nil
		}
		if err := <-done; err != nil {
			return fmt.Errorf("--fix-after: %w", err)
		}
		return nil
	}
}

// Fix raises the global nf_conntrack_max to max during the lab (the
// write-up's fix, for recordings) and returns the cap it found. It only
// raises: a cap already at max or above (the host's own, or an operator's
// larger fix from the t panel) is left as it is. Close restores the value
// from before the lab.
func (l *Lab) Fix(max uint64) (was uint64, err error) {
	was, err = kernelfs.ReadSysctlUint(l.paths.max())
	if err != nil {
		return 0, fmt.Errorf("read nf_conntrack_max: %w", err)
	}
	if was >= max {
		return was, nil
	}
	if err := l.Remember(GlobalMax); err != nil {
		return was, err
	}
	if err := os.WriteFile(l.paths.max(), []byte(strconv.FormatUint(max, 10)), 0o644); err != nil {
		return was, fmt.Errorf("raise nf_conntrack_max: %w", err)
	}
	return was, nil
}
