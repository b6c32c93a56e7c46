package tune

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// FuzzUndoRecord: whatever an undo record says (it passed the owner and
// mode checks: it is ours, or a root user planted it), undo writes only
// the files tablefull manages, only while they hold what tablefull
// wrote, and only numbers into the knobs.
func FuzzUndoRecord(f *testing.F) {
	good, _ := json.Marshal(UndoRecord{Live: map[string]string{knob.TimeWait: "120"},
		Files: []FileChange{{Path: "SYSCTL", Old: []byte("a = 1\n"), New: []byte("b = 2\n")}}})
	f.Add(string(good))
	f.Add(`{"live":{"kernel.core_pattern":"|/tmp/x"},"files":[{"Path":"VICTIM","Old":"cm9vdA==","New":null}]}`)
	f.Add(`{"live":{"net.netfilter.nf_conntrack_tcp_timeout_time_wait":"1\nx"}}`)
	value := regexp.MustCompile(`^[0-9]+(\t[0-9]+)?\n$`)
	f.Fuzz(func(t *testing.T, record string) {
		root := t.TempDir()
		p := Persister{SysctlDir: filepath.Join(root, "sysctl.d"), ModprobeDir: filepath.Join(root, "modprobe.d")}
		os.MkdirAll(p.SysctlDir, 0o755)
		os.MkdirAll(p.ModprobeDir, 0o755)
		managed := filepath.Join(p.SysctlDir, SysctlFile)
		victim := filepath.Join(root, "victim") // a system file's stand-in: a broken undo writes only this test's files
		record = strings.ReplaceAll(strings.ReplaceAll(record, "SYSCTL", managed), "VICTIM", victim)
		state := filepath.Join(root, "state")
		os.MkdirAll(state, 0o700)
		os.WriteFile(filepath.Join(state, undoFile), []byte(record), 0o600)
		os.WriteFile(victim, []byte("keep\n"), 0o644)
		tw := kernelfs.SysctlPath(filepath.Join(root, "proc"), knob.TimeWait)
		os.MkdirAll(filepath.Dir(tw), 0o755)
		os.WriteFile(tw, []byte("30\n"), 0o644)

		rec, err := LoadUndo(state)
		if err != nil {
			return
		}
		var changes []tuning.Change
		for k, v := range rec.Live {
			changes = append(changes, tuning.Change{Key: k, Proposed: v})
		}
		(&Sysctls{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys")}).Apply(changes, 0)
		p.Restore(rec.Files)
		if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
			t.Fatalf("undo wrote %s", victim)
		}
		if b, _ := os.ReadFile(tw); !value.Match(b) {
			t.Fatalf("undo wrote %q into a knob", b)
		}
		filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && path != managed && path != victim && path != tw && filepath.Dir(path) != state {
				t.Fatalf("undo created %s", path)
			}
			return nil
		})
	})
}

// FuzzSlabinfo: any /proc/slabinfo gives the tuner a number (0 when it
// cannot tell) without panicking.
func FuzzSlabinfo(f *testing.F) {
	f.Add([]byte("slabinfo - version: 2.1\n# name <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\nnf_conntrack 512 512 256 16 1 : tunables 0 0 0 : slabdata 32 32 0\n"))
	f.Add([]byte("nf_conntrack x y"))
	f.Fuzz(func(t *testing.T, b []byte) {
		proc := t.TempDir()
		os.WriteFile(filepath.Join(proc, "slabinfo"), b, 0o644)
		(&Sysctls{Proc: proc, Sys: t.TempDir()}).EntryBytes()
	})
}

// TestEntryBytesFromSlabinfo: the tuner takes nf_conntrack's objsize from
// /proc/slabinfo (through procfs) when the slab's sysfs file is missing.
func TestEntryBytesFromSlabinfo(t *testing.T) {
	proc := t.TempDir()
	os.WriteFile(filepath.Join(proc, "slabinfo"), []byte("slabinfo - version: 2.1\n# name <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\nkmalloc-64 1 1 64 64 1 : tunables 0 0 0 : slabdata 1 1 0\nnf_conntrack 512 512 256 16 1 : tunables 0 0 0 : slabdata 32 32 0\n"), 0o644)
	if got := (&Sysctls{Proc: proc, Sys: t.TempDir()}).EntryBytes(); got != 256 {
		t.Errorf("entry bytes %d, want 256", got)
	}
}
