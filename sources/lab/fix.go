package lab

import (
	"fmt"
	"strconv"
	"time"
)

// FixMax is the cap --fix-after raises nf_conntrack_max to: the
// write-up's fix.
const FixMax = 16384

// FixAfter raises nf_conntrack_max to FixMax once d has passed (0: never):
// --fix-after, for the console and Headless alike. fixed, when not nil,
// is told the cap found once the raise is done. The returned wait stops a
// raise not yet started, or waits for one under way (the lab restores the
// host only after it), and returns the raise's error.
func (l *Lab) FixAfter(d time.Duration, fixed func(was uint64)) (wait func() error) {
	if d <= 0 {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	t := time.AfterFunc(d, func() {
		was, err := l.Fix(FixMax)
		if err == nil && fixed != nil {
			fixed(was)
		}
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
// larger fix from the t panel) is left as it is. A lab that set the
// hashsize keeps its proportions: buckets under max are raised to it, as
// a plan would. Close restores the values from before the lab.
func (l *Lab) Fix(max uint64) (was uint64, err error) {
	was, err = l.paths.read(GlobalMax)
	if err != nil {
		return 0, fmt.Errorf("read nf_conntrack_max: %w", err)
	}
	if was >= max {
		return was, nil
	}
	if err := l.Remember(GlobalMax); err != nil {
		return was, err
	}
	if err := setGlobal(l.paths, GlobalMax, strconv.FormatUint(max, 10)); err != nil {
		return was, err
	}
	if l.Buckets > 0 && l.Buckets < max {
		if err := setGlobal(l.paths, GlobalHashsize, strconv.FormatUint(max, 10)); err != nil {
			return was, fmt.Errorf("raise the hashsize with it: %w", err)
		}
	}
	return was, nil
}

// labBuckets is the hashsize a lab sets (0: none): asked, the
// scenario's own, or for a scenario that lowers the cap the cap itself
// (max = buckets, the kernel's proportions since 5.15: a lowered cap over
// the host's 262,144 buckets leaves hundreds of buckets an entry, where
// the packet path's 8-bucket early drop almost never finds one).
func labBuckets(sc Scenario, asked uint64) uint64 {
	switch {
	case asked > 0:
		return asked
	case sc.labBuckets > 0:
		return sc.labBuckets
	case sc.hostBuckets:
		return 0
	}
	return sc.labMax
}

// Proportions says which proportions the lab's table has: "max 256 over
// 512 buckets (max = buckets, the kernel's proportions; it rounds buckets
// up to 512)"; "" when the lab changes neither.
func (l *Lab) Proportions() string {
	switch {
	case l.Max == 0 && l.Buckets == 0:
		return ""
	case l.Buckets == 0:
		return fmt.Sprintf("max %d over the host's buckets: the collector's pass over a large, sparse hash, as on a big host (--buckets sets them)", l.Max)
	case l.Max == 0:
		return fmt.Sprintf("the host's max over %d buckets", l.Buckets)
	case l.Buckets <= l.Max:
		return fmt.Sprintf("max %d over %d buckets: max = buckets, the kernel's own proportions since 5.15", l.Max, l.Buckets)
	case l.Buckets < 2*l.Max+kernelBucketPage:
		return fmt.Sprintf("max %d over %d buckets: max = buckets as near as the kernel allows (it sizes the hash a page of %d buckets at a time)", l.Max, l.Buckets, kernelBucketPage)
	}
	return fmt.Sprintf("max %d over %d buckets: %d buckets an entry, not the kernel's proportions (--buckets %d gives max = buckets)", l.Max, l.Buckets, l.Buckets/l.Max, l.Max)
}

// kernelBucketPage is how many buckets the kernel allocates at a time:
// a page of 8-byte list heads (nf_ct_alloc_hashtable rounds up to it).
const kernelBucketPage = 512
