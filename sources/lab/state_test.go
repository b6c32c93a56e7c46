package lab

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedStateIsKept: a state file the lab cannot trust or read stops
// the lab, is named in the error and is still there afterwards, with the
// original values it records.
func TestDamagedStateIsKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the lab needs root")
	}
	for name, tc := range map[string]struct {
		text string
		mode os.FileMode
	}{
		"not json":       {`{"pid":1,"globals":{"net.netfilter.nf_conntrack_max":"4096"`, 0o600},
		"loose mode":     {`{"pid":1,"netns":"tablefull-lab","globals":{"net.netfilter.nf_conntrack_max":"4096"}}`, 0o644},
		"smuggled value": {`{"pid":1,"globals":{"net.netfilter.nf_conntrack_max":"4096\n1"}}`, 0o600},
		"unknown knob":   {`{"pid":1,"globals":{"../../etc/passwd":"1"}}`, 0o600},
		"foreign netns":  {`{"pid":1,"netns":"prod"}`, 0o600},
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

// TestRepairRestoresGlobals: a state file left by a killed lab brings
// back every global knob it recorded, re-rendered, and is removed.
func TestRepairRestoresGlobals(t *testing.T) {
	run, proc, sys := t.TempDir(), t.TempDir(), t.TempDir()
	paths := Paths{RunDir: run, Proc: proc, Sys: sys}
	for _, g := range []Global{GlobalMax, GlobalHashsize} {
		os.MkdirAll(filepath.Dir(paths.global(g)), 0o755)
		os.WriteFile(paths.global(g), []byte("256\n"), 0o644)
	}
	if err := saveState(paths, State{PID: 1, Globals: map[Global]string{GlobalMax: "262144", GlobalHashsize: "65536"}}); err != nil {
		t.Fatal(err)
	}
	note, err := Repair(paths)
	if err != nil || !strings.Contains(note, "hashsize=65536") || !strings.Contains(note, "nf_conntrack_max=262144") {
		t.Fatalf("repair: %q %v", note, err)
	}
	for g, want := range map[Global]string{GlobalMax: "262144", GlobalHashsize: "65536"} {
		if b, _ := os.ReadFile(paths.global(g)); strings.TrimSpace(string(b)) != want {
			t.Errorf("%s = %q, want %s", g, b, want)
		}
	}
	if _, err := os.Stat(paths.state()); !os.IsNotExist(err) {
		t.Errorf("state file left after repair: %v", err)
	}
}

// FuzzLabState: whatever the state file holds, a repair writes only
// numbers, only into the knobs the lab knows, or refuses and keeps the
// file.
func FuzzLabState(f *testing.F) {
	f.Add(`{"pid":1,"netns":"tablefull-lab","globals":{"net.netfilter.nf_conntrack_max":"262144","nf_conntrack.hashsize":"65536"}}`)
	f.Add(`{"globals":{"net.netfilter.nf_conntrack_max":"1\n2"}}`)
	f.Add(`{"globals":{"../../x":"1"}}`)
	f.Fuzz(func(t *testing.T, text string) {
		run, proc, sys := t.TempDir(), t.TempDir(), t.TempDir()
		paths := Paths{RunDir: run, Proc: proc, Sys: sys}
		for _, g := range []Global{GlobalMax, GlobalHashsize} {
			os.MkdirAll(filepath.Dir(paths.global(g)), 0o755)
			os.WriteFile(paths.global(g), []byte("256"), 0o644)
		}
		os.WriteFile(paths.state(), []byte(text), 0o600)
		if _, err := Repair(paths); err != nil {
			if _, serr := os.Stat(paths.state()); serr != nil {
				t.Fatalf("a refused state file was removed: %v", err)
			}
		}
		for _, g := range []Global{GlobalMax, GlobalHashsize} {
			b, _ := os.ReadFile(paths.global(g))
			if strings.Trim(string(b), "0123456789\n") != "" || len(strings.TrimSpace(string(b))) == 0 {
				t.Fatalf("%s = %q after repair", g, b)
			}
		}
		for _, dir := range []string{proc, sys} {
			filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() && p != paths.global(GlobalMax) && p != paths.global(GlobalHashsize) {
					t.Fatalf("repair created %s", p)
				}
				return nil
			})
		}
	})
}
