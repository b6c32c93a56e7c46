package tune

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// DriftEvery is how often the drift check reads the persisted files
// again: they change by hand or by tune, not every sample.
const DriftEvery = 10 * time.Second

// Persisted reads back the values tablefull persisted: the lines of its
// sysctl.d file for its knobs (other keys' lines are kept, not its own), and the hashsize of its modprobe.d or tmpfiles.d line.
// Files that do not exist persisted nothing; one that cannot be read is
// an error (the check is not made, rather than made on half of it).
func (p Persister) Persisted() (map[string]string, error) {
	out := map[string]string{}
	read := func(path string) ([]string, error) {
		b, err := kernelfs.ReadBounded(path, maxConfFile)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return lines(b), err
	}
	ls, err := read(filepath.Join(p.SysctlDir, SysctlFile))
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		k, v, ok := sysctlLine(l)
		if _, mine := tuning.Spec(k); ok && mine {
			out[k] = v
		}
	}
	if ls, err = read(filepath.Join(p.ModprobeDir, ModprobeFile)); err != nil {
		return nil, err
	}
	for _, l := range ls {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "options" && f[1] == "nf_conntrack" {
			for _, o := range f[2:] {
				if v, ok := strings.CutPrefix(o, "hashsize="); ok {
					out[knob.Hashsize] = v
				}
			}
		}
	}
	if p.TmpfilesDir != "" {
		if ls, err = read(filepath.Join(p.TmpfilesDir, TmpfilesFile)); err != nil {
			return nil, err
		}
		for _, l := range ls {
			if v, ok := tmpfilesHashsize(l); ok {
				out[knob.Hashsize] = v
			}
		}
	}
	return out, nil
}

// laterWriters names, for each key, the sysctl files read after
// tablefull's that set it (Shadowed's files) and the running programs
// that write it at their start (kube-proxy).
func (p Persister) laterWriters(keys []string, procRoot string) map[string][]string {
	out := map[string][]string{}
	for _, path := range p.laterSysctlFiles() {
		b, err := kernelfs.ReadBounded(path, maxConfFile)
		if err != nil {
			continue
		}
		for _, l := range lines(b) {
			if k, v, ok := sysctlLine(l); ok && slices.Contains(keys, k) {
				out[k] = append(out[k], fmt.Sprintf("%s (%s)", path, v))
			}
		}
	}
	for _, m := range FindManagers(procRoot) {
		for k := range m.Owns {
			if slices.Contains(keys, k) {
				out[k] = append(out[k], fmt.Sprintf("%s (pid %d) at its start", m.Name, m.PID))
			}
		}
	}
	return out
}

// DriftCheck compares what tablefull persisted with the live knobs, on
// every DriftEvery: the value that did not apply at boot, or that
// something wrote since, is seen on every run. Only the persisted knobs
// are read: on a host where nothing was persisted, the check reads
// tablefull's two files and no knob. The later writers (a walk of every
// process for kube-proxy) are looked up again only when what drifted
// changes.
type DriftCheck struct {
	Pers    Persister
	Sysctls *Sysctls
	Proc    string // for the programs that write knobs
	at      time.Time
	last    *knob.Drifts
	// writersOf is what drifted when writers were looked up.
	writersOf string
	writers   map[string][]string
}

// Read returns the drift at now, read again every DriftEvery; nil when
// the persisted files could not be read.
func (d *DriftCheck) Read(now time.Time) *knob.Drifts {
	if !d.at.IsZero() && now.Sub(d.at) < DriftEvery && now.After(d.at) {
		return d.last
	}
	d.at = now
	persisted, err := d.Pers.Persisted()
	if err != nil {
		d.last = nil
		return nil
	}
	drifts := knob.DriftOf(persisted, d.Sysctls.ReadOf(persisted)) // nothing persisted: nothing to read
	if key := fmt.Sprint(drifts.Drifted); key != d.writersOf {
		d.writersOf, d.writers = key, d.Pers.writersOf(drifts, d.Proc)
	}
	nameWriters(&drifts, d.writers)
	d.last = &drifts
	return d.last
}

// Drift compares what p persisted with the live knobs, naming for each
// drifted knob the writers known to come after tablefull's file (procRoot
// for the running ones).
func (p Persister) Drift(live map[string]string, procRoot string) (*knob.Drifts, error) {
	persisted, err := p.Persisted()
	if err != nil {
		return nil, err
	}
	drifts := knob.DriftOf(persisted, live)
	nameWriters(&drifts, p.writersOf(drifts, procRoot))
	return &drifts, nil
}

// writersOf looks up the later writers of the knobs that drifted.
func (p Persister) writersOf(d knob.Drifts, procRoot string) map[string][]string {
	if len(d.Drifted) == 0 {
		return nil
	}
	var keys []string
	for _, x := range d.Drifted {
		keys = append(keys, x.Knob)
	}
	return p.laterWriters(keys, procRoot)
}

// nameWriters fills each drifted knob's writers.
func nameWriters(d *knob.Drifts, writers map[string][]string) {
	for i := range d.Drifted {
		d.Drifted[i].Writers = writers[d.Drifted[i].Knob]
	}
}
