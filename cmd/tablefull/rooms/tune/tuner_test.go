package tune

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/cli"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/exitcode"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/tunecmd"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/tune"
)

func (k *tempKnobs) knob(t *testing.T, key string) string {
	t.Helper()
	return strings.Join(strings.Fields(k.tuner().Tuner.Read()[key]), " ")
}

// failWrites makes every write to key fail after the pre-write checks
// pass: the knob becomes /dev/full (ENOSPC).
func (k *tempKnobs) failWrites(t *testing.T, rel string) {
	t.Helper()
	path := filepath.Join(k.root, rel)
	os.Remove(path)
	if err := os.Symlink("/dev/full", path); err != nil {
		t.Fatal(err)
	}
}

// TestPartialApplyIsUndone: the second knob fails after the first was
// written: the first is in the undo record, tune exits with exitcode.Partial
// naming it, and --undo restores it. The command line's own words: the
// exit code and the message.
func TestPartialApplyIsUndone(t *testing.T) {
	k := newTempKnobs(t)
	k.failWrites(t, "proc/sys/net/ipv4/tcp_tw_reuse")
	roots := kernelfs.Roots{Proc: filepath.Join(k.root, "proc"), Sys: filepath.Join(k.root, "sys"), Dev: filepath.Join(k.root, "dev")}
	var out, errb bytes.Buffer
	code := cli.Run([]string{"tune", "--procfs", roots.Proc, "--sysfs", roots.Sys, "--devfs", roots.Dev, "--state-dir", k.stateDir,
		"--set", knob.Max + "=8192", "--set", knob.TwReuse + "=1", "--yes", "--sysctl-dir", k.sysctlDir, "--modprobe-dir", k.modprobeDir}, &out, &errb)
	if code != exitcode.Partial {
		t.Fatalf("tune exited %d (%s %s), want %d", code, out.String(), errb.String(), exitcode.Partial)
	}
	if !strings.Contains(errb.String(), knob.Max+" written") || !strings.Contains(out.String()+errb.String(), "--undo") {
		t.Errorf("the message does not say what was written: %s\n%s", errb.String(), out.String())
	}
	if got := k.knob(t, knob.Max); got != "8192" {
		t.Fatalf("max reads %s after the partial apply", got)
	}
	out.Reset()
	if err := tunecmd.Command(roots, tunecmd.CommandOptions{Undo: true, SysctlDir: k.sysctlDir, ModprobeDir: k.modprobeDir, StateDir: k.stateDir}, &out); err != nil {
		t.Fatalf("undo: %v\n%s", err, out.String())
	}
	if got := k.knob(t, knob.Max); got != "4096" {
		t.Errorf("after undo max reads %s, want 4096", got)
	}
}

// TestPartialPersistIsUndone: the modprobe file cannot be written after
// the sysctl file was: the sysctl file is in the undo record and undo
// removes it.
func TestPartialPersistIsUndone(t *testing.T) {
	k := newTempKnobs(t)
	lt := k.tuner()
	lt.Pers.ModprobeDir = "/proc/sys" // nobody creates files there
	files, _, err := lt.Persist([]tuning.Change{{Key: knob.Max, Proposed: "8192"}, {Key: knob.Hashsize, Proposed: "8192"}})
	sysctl := filepath.Join(k.sysctlDir, tune.SysctlFile)
	if !errors.Is(err, tune.ErrPartial) || len(files) != 1 || files[0] != sysctl {
		t.Fatalf("partial persist: files %v, err %v", files, err)
	}
	if _, err := os.Stat(sysctl); err != nil {
		t.Fatalf("the first file was not written: %v", err)
	}
	if _, _, err := lt.UndoFiles(); err != nil {
		t.Fatalf("undo: %v", err)
	}
	if _, err := os.Stat(sysctl); !os.IsNotExist(err) {
		t.Errorf("undo left %s: %v", sysctl, err)
	}
}

// TestUndoRecordIsChecked: a planted or loosened undo record is refused,
// a record naming a file tablefull does not manage restores nothing, and
// modes survive a rewrite.
func TestUndoRecordIsChecked(t *testing.T) {
	k := newTempKnobs(t)
	lt := k.tuner()
	if _, err := lt.Apply([]tuning.Change{{Key: knob.TimeWait, Proposed: "30"}}, 0); err != nil {
		t.Fatal(err)
	}
	undo := filepath.Join(k.stateDir, "undo.json")
	if st, err := os.Stat(undo); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("undo record mode: %v %v", st.Mode(), err)
	}

	os.Chmod(undo, 0o644)
	if _, _, err := lt.UndoFiles(); !errors.Is(err, kernelfs.ErrUntrusted) {
		t.Errorf("undo with a 0644 record: %v", err)
	}
	if _, err := lt.Apply([]tuning.Change{{Key: knob.TimeWait, Proposed: "60"}}, 0); !errors.Is(err, kernelfs.ErrUntrusted) || k.knob(t, knob.TimeWait) != "30" {
		t.Errorf("an apply over an untrusted record: %v, time_wait %s", err, k.knob(t, knob.TimeWait))
	}
	os.Chmod(undo, 0o600)
	os.Chown(undo, 65534, 65534)
	if _, _, err := lt.UndoFiles(); !errors.Is(err, kernelfs.ErrUntrusted) {
		t.Errorf("undo with a record owned by nobody: %v", err)
	}
	os.Chown(undo, 0, 0)

	victim := filepath.Join(k.root, "victim")
	os.WriteFile(victim, []byte("keep me\n"), 0o600)
	planted, _ := json.Marshal(tune.UndoRecord{Files: []tune.FileChange{{Path: victim, Old: []byte("owned\n"), New: []byte("keep me\n")}}})
	os.WriteFile(undo, planted, 0o600)
	if _, _, err := lt.UndoFiles(); !errors.Is(err, tune.ErrNotManaged) {
		t.Errorf("undo of a foreign path: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Errorf("a planted record overwrote %s: %q", victim, b)
	}
	os.Remove(undo)

	sysctl := filepath.Join(k.sysctlDir, tune.SysctlFile)
	os.WriteFile(sysctl, []byte("vm.swappiness = 10\n"), 0o600)
	if _, _, err := lt.Persist([]tuning.Change{{Key: knob.Max, Proposed: "8192"}}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{sysctl, sysctl + ".tablefull-bak"} {
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want the 0600 of the file it replaced", path, st.Mode().Perm())
		}
	}
}
