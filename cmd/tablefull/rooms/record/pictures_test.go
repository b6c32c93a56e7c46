package record

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPicturesAreTheProgramsOwn: the README's animated picture and the
// manual's still are what the program draws now (make pictures re-draws
// them): the demo as frames one after the other, a recorded incident's
// last frame, each the console's own screen in colour.
func TestPicturesAreTheProgramsOwn(t *testing.T) {
	exe, _ := os.Executable()
	for _, c := range []struct {
		file string
		args []string
		want []string
	}{
		{"demo.svg", []string{"demo"}, []string{`class="f"`, "TABLE FULL", "REPLAY"}},
		{"pool.svg", []string{"replay", "testdata/incidents/pool.jsonl", "--svg-every", "0"}, []string{"REPLAY PAUSED"}},
	} {
		out := filepath.Join(t.TempDir(), c.file)
		cmd := exec.Command(exe, append(c.args, "--svg", out)...)
		cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1", "TZ=UTC")
		cmd.Dir = "../../../.." // as make pictures runs it: the header names the file as given
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v --svg: %v: %s", c.args, err, b)
		}
		if string(b) != "wrote "+out+"\n" { // as report says what it wrote
			t.Errorf("%v --svg printed %q, want it to say what it wrote", c.args, b)
		}
		got, _ := os.ReadFile(out)
		for _, w := range c.want {
			if !bytes.Contains(got, []byte(w)) {
				t.Errorf("%s lacks %q", c.file, w)
			}
		}
		if strings.Contains(string(got), "\x1b") {
			t.Errorf("%s holds a raw escape", c.file)
		}
		committed, err := os.ReadFile(filepath.Join("../../../../docs/pictures", c.file))
		if err != nil || !bytes.Equal(committed, got) {
			t.Errorf("docs/pictures/%s is not what the program draws now (%v): make pictures", c.file, err)
		}
	}
}

// TestPictureRefusesLinks: --svg replaces a regular file but never writes
// through a symlink planted where the picture goes (a root replay would
// write the link's target).
func TestPictureRefusesLinks(t *testing.T) {
	exe, _ := os.Executable()
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "pic.svg")
	os.WriteFile(target, []byte("kept"), 0o600)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "replay", "testdata/incidents/pool.jsonl", "--svg-every", "0", "--svg", link)
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	cmd.Dir = "../../../.."
	out, err := cmd.CombinedOutput()
	if got, _ := os.ReadFile(target); err == nil || string(got) != "kept" || !strings.Contains(string(out), "symlink") {
		t.Errorf("--svg through a symlink: %v %s; its target now %q", err, out, got)
	}
}
