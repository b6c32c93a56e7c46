package tune

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/prometheus/procfs"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Tuner reads and writes the tunable knobs: /proc/sys for sysctls, sysfs
// for the nf_conntrack hashsize module parameter.
type Sysctls struct {
	Proc, Sys string
}

// NewSysctls reads and writes the knobs under roots.
func NewSysctls(r kernelfs.Roots) *Sysctls { return &Sysctls{Proc: r.Proc, Sys: r.Sys} }

// path is where a knob lives.
func (t *Sysctls) path(key string) string {
	if key == knob.Hashsize {
		return filepath.Join(t.Sys, "module", "nf_conntrack", "parameters", "hashsize")
	}
	return kernelfs.SysctlPath(t.Proc, key)
}

// Read returns the current value of every knob that can be read, with
// whitespace normalised ("32768 60999"). Unprivileged, hashsize (mode
// 0600) is read as nf_conntrack_buckets, which holds the same number.
func (t *Sysctls) Read() map[string]string {
	out := map[string]string{}
	for _, k := range tuning.Knobs {
		if v, ok := t.readKnob(k.Key); ok {
			out[k.Key] = v
		}
	}
	return out
}

// ReadOf is Read of the knobs keys names only (a knob tablefull does not
// tune is left out).
func (t *Sysctls) ReadOf(keys map[string]string) map[string]string {
	out := make(map[string]string, len(keys))
	for key := range keys {
		if _, known := tuning.Spec(key); !known {
			continue
		}
		if v, ok := t.readKnob(key); ok {
			out[key] = v
		}
	}
	return out
}

// readKnob reads one knob (see Read).
func (t *Sysctls) readKnob(key string) (string, bool) {
	v, err := kernelfs.ReadSysctl(t.path(key))
	if err != nil && key == knob.Hashsize {
		v, err = kernelfs.ReadSysctl(kernelfs.SysctlPath(t.Proc, counters.KeyBuckets))
	}
	return v, err == nil
}

// EntryBytes is the memory of one conntrack entry: the slab's per-object
// size from /sys/kernel/slab/nf_conntrack/slab_size, else the objsize
// column of /proc/slabinfo (both root-only here), else 0, which cost
// estimates replace with tuning.FallbackEntryBytes.
func (t *Sysctls) EntryBytes() uint64 {
	if v, err := kernelfs.ReadSysctlUint(filepath.Join(t.Sys, "kernel", "slab", "nf_conntrack", "slab_size")); err == nil && v > 0 {
		return v
	}
	fs, err := procfs.NewFS(t.Proc)
	if err != nil {
		return 0
	}
	info, err := fs.SlabInfo()
	if err != nil {
		return 0
	}
	for _, s := range info.Slabs {
		if s.Name == "nf_conntrack" && s.ObjSize > 0 {
			return uint64(s.ObjSize)
		}
	}
	return 0
}

// Errors of an apply; nothing was written when one is returned, but for
// ErrPartial.
var (
	// ErrPartial reports that some changes were written before one failed;
	// the results name those written.
	ErrPartial       = errors.New("partly written")
	ErrGlobalInChild = errors.New("global knob: read-only inside a child network namespace; set it from the host namespace")
	ErrReadOnlyFS    = errors.New("read-only")
	ErrBelowCount    = errors.New("below the current count")
)

// Result is one knob after an apply.
type Result = knob.Result

// InChildNamespace reports whether this process runs outside the initial
// network namespace, where the global conntrack knobs are read-only. The
// kernel shows it in the files themselves: nf_conntrack_max is mode 0444
// in a child namespace, 0644 in the initial one.
func (t *Sysctls) InChildNamespace() bool {
	st, err := os.Stat(kernelfs.SysctlPath(t.Proc, knob.Max))
	return err == nil && st.Mode().Perm()&0o222 == 0
}

// Check validates changes against the running system without writing:
// values, max against the live count, global knobs from a child
// namespace, and whether each file can be opened for writing.
func (t *Sysctls) Check(changes []tuning.Change, count uint64) error {
	child := t.InChildNamespace()
	for _, c := range changes {
		v, err := tuning.ParseValue(c.Key, c.Proposed)
		if err != nil {
			return err
		}
		spec, _ := tuning.Spec(c.Key)
		if spec.Global && child {
			return fmt.Errorf("%s: %w", c.Key, ErrGlobalInChild)
		}
		if c.Key == knob.Max {
			if n, _ := strconv.ParseUint(v, 10, 64); n < count {
				return fmt.Errorf("%s = %s: %w %s: the table would refuse every new entry", c.Key, v, ErrBelowCount, units.Int(count))
			}
		}
		f, err := os.OpenFile(t.path(c.Key), os.O_WRONLY, 0)
		switch {
		case errors.Is(err, syscall.EROFS):
			return fmt.Errorf("%s: %w filesystem (a container?): %w", c.Key, ErrReadOnlyFS, err)
		case errors.Is(err, fs.ErrPermission):
			return fmt.Errorf("%s: %w: %w", c.Key, kernelfs.ErrPermission, err)
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s: %w", c.Key, kernelfs.ErrUnavailable)
		case err != nil:
			return fmt.Errorf("%s: %w", c.Key, err)
		}
		f.Close()
	}
	return nil
}

// Apply checks every change, then writes each and reads it back. A
// failed check writes nothing; the results say per knob whether the
// kernel holds the value asked for (sysctl(8) ignores a typo silently;
// tablefull does not).
func (t *Sysctls) Apply(changes []tuning.Change, count uint64) ([]Result, error) {
	changes, err := tuning.CheckChanges(changes) // what is written is what we rendered
	if err != nil {
		return nil, err
	}
	if err := t.Check(changes, count); err != nil {
		return nil, err
	}
	before := t.Read()
	var out []Result
	for _, c := range changes {
		r := Result{Key: c.Key, Before: before[c.Key], Wanted: c.Proposed}
		if err := os.WriteFile(t.path(c.Key), []byte(strings.ReplaceAll(c.Proposed, " ", "\t")+"\n"), 0); err != nil {
			if len(out) > 0 {
				return out, fmt.Errorf("%w: %s written, then write %s: %w", ErrPartial, resultKeys(out), c.Key, err)
			}
			return out, fmt.Errorf("write %s: %w", c.Key, err)
		}
		r.After = t.Read()[c.Key]
		r.Verified = r.After == c.Proposed
		out = append(out, r)
	}
	return out, nil
}

// resultKeys lists the knobs of results, for a message.
func resultKeys(rs []Result) string {
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.Key
	}
	return strings.Join(keys, ", ")
}
