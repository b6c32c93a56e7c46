package lab

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/tune"
)

// TestDamagedStateIsKept: a state file the lab cannot trust or read stops
// the lab, is named in the error and is still there afterwards, with the
// original values it records.
func TestDamagedStateIsKept(t *testing.T) {
	kernelfstest.Need(t, "the lab")
	for name, tc := range map[string]struct {
		text string
		mode os.FileMode
	}{
		"not json":      {`{"pid":1,"netns":"tablefull-lab"`, 0o600},
		"loose mode":    {`{"pid":1,"netns":"tablefull-lab"}`, 0o644},
		"foreign netns": {`{"pid":1,"netns":"prod"}`, 0o600},
	} {
		t.Run(name, func(t *testing.T) {
			run := t.TempDir()
			paths := Paths{RunDir: run, Proc: t.TempDir(), Sys: t.TempDir()}
			state := filepath.Join(run, "tablefull-lab.json")
			os.WriteFile(state, []byte(tc.text), tc.mode)
			os.Chmod(state, tc.mode)
			_, err := Start("healthy", Options{Paths: paths})
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), state) {
				t.Fatalf("got %v, want ErrDamaged naming %s", err, state)
			}
			if b, err := os.ReadFile(state); err != nil || string(b) != tc.text {
				t.Errorf("the damaged state file was not kept: %q %v", b, err)
			}
		})
	}
}

// fixturePaths are a lab's paths under temporary roots where both
// global knobs hold 256.
func fixturePaths(t testing.TB) Paths {
	paths := Paths{RunDir: t.TempDir(), Proc: t.TempDir(), Sys: t.TempDir()}
	for _, g := range []Global{GlobalMax, GlobalHashsize} {
		os.MkdirAll(filepath.Dir(knobPath(paths, g)), 0o755)
		os.WriteFile(knobPath(paths, g), []byte("256\n"), 0o644)
	}
	return paths
}

// TestRepairRestoresGlobals: what a killed lab left — its state file and
// the undo record of the knobs it changed — brings back every global
// knob the record keeps, and both are removed.
func TestRepairRestoresGlobals(t *testing.T) {
	paths := fixturePaths(t)
	if err := saveState(paths, State{PID: 1}); err != nil {
		t.Fatal(err)
	}
	if err := tune.SaveUndo(paths.undoDir(), tune.UndoRecord{Live: map[string]string{string(GlobalMax): "262144", string(GlobalHashsize): "65536"}}); err != nil {
		t.Fatal(err)
	}
	note, err := Repair(paths)
	if err != nil || !strings.Contains(note, "hashsize=65536") || !strings.Contains(note, "nf_conntrack_max=262144") {
		t.Fatalf("repair: %q %v", note, err)
	}
	for g, want := range map[Global]string{GlobalMax: "262144", GlobalHashsize: "65536"} {
		if b, _ := os.ReadFile(knobPath(paths, g)); strings.TrimSpace(string(b)) != want {
			t.Errorf("%s = %q, want %s", g, b, want)
		}
	}
	if _, err := os.Stat(paths.state()); !os.IsNotExist(err) {
		t.Errorf("state file left after repair: %v", err)
	}
	if _, err := tune.LoadUndo(paths.undoDir()); !errors.Is(err, tune.ErrNothingToUndo) {
		t.Errorf("undo record left after repair: %v", err)
	}
}

// TestRememberKeepsTheFirstValue: the lab records a knob's value before
// its first change only, in tune's undo record: a second change keeps
// the value from before the first.
func TestRememberKeepsTheFirstValue(t *testing.T) {
	l, path := fixtureLab(t)
	if err := l.Remember(GlobalMax); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("512\n"), 0o644)
	if err := l.Remember(GlobalMax); err != nil {
		t.Fatal(err)
	}
	rec, err := tune.LoadUndo(l.paths.undoDir())
	if err != nil || rec.Live[string(GlobalMax)] != "256" {
		t.Errorf("the record: %+v %v, want max 256", rec, err)
	}
}

// FuzzLabState: whatever the undo record a killed lab left holds, a
// repair writes only numbers, only into the knobs it knows, or refuses
// and keeps the record.
func FuzzLabState(f *testing.F) {
	f.Add(`{"live":{"net.netfilter.nf_conntrack_max":"262144","nf_conntrack.hashsize":"65536"}}`)
	f.Add(`{"live":{"net.netfilter.nf_conntrack_max":"1\n2"}}`)
	f.Add(`{"live":{"../../x":"1"}}`)
	f.Fuzz(func(t *testing.T, text string) {
		paths := fixturePaths(t)
		os.MkdirAll(paths.undoDir(), 0o700)
		record := filepath.Join(paths.undoDir(), "undo.json")
		os.WriteFile(record, []byte(text), 0o600)
		if _, err := Repair(paths); err != nil {
			if _, serr := os.Stat(record); serr != nil {
				t.Fatalf("a refused record was removed: %v", err)
			}
		}
		for _, g := range []Global{GlobalMax, GlobalHashsize} {
			b, _ := os.ReadFile(knobPath(paths, g))
			if strings.Trim(string(b), "0123456789\n") != "" || len(strings.TrimSpace(string(b))) == 0 {
				t.Fatalf("%s = %q after repair", g, b)
			}
		}
		for _, dir := range []string{paths.Proc, paths.Sys} {
			filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() && p != knobPath(paths, GlobalMax) && p != knobPath(paths, GlobalHashsize) {
					t.Fatalf("repair created %s", p)
				}
				return nil
			})
		}
	})
}

// knobPath is where a global knob lives under p's roots, for fixtures.
func knobPath(p Paths, g Global) string {
	if g == GlobalHashsize {
		return filepath.Join(p.Sys, "module", "nf_conntrack", "parameters", "hashsize")
	}
	return filepath.Join(p.Proc, "sys", "net", "netfilter", "nf_conntrack_max")
}

// TestLockRefusesPlantedFiles: the lab's lock is opened by root in a run
// directory; a link planted at its name is not followed (the file it
// names is not created), and a FIFO there is refused at once.
func TestLockRefusesPlantedFiles(t *testing.T) {
	dir := t.TempDir()
	p := Paths{RunDir: dir}
	target := filepath.Join(dir, "elsewhere")
	if err := os.Symlink(target, p.lock()); err != nil {
		t.Fatal(err)
	}
	if f, err := lock(p); err == nil {
		f.Close()
		t.Error("the lock was opened through a link")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("opening the lock created the file a planted link names")
	}
	os.Remove(p.lock())
	if err := syscall.Mkfifo(p.lock(), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := lock(p)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO taken for the lock")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("opening a FIFO planted as the lock blocks")
	}
}
