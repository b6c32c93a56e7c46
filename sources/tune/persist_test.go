package tune

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

var tuneChanges = []tuning.Change{
	{Key: knob.Max, Proposed: "32768"},
	{Key: knob.TimeWait, Proposed: "30"},
	{Key: knob.Hashsize, Proposed: "8192"},
}

func TestPersistKeepsForeignLinesAndIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	p := Persister{SysctlDir: filepath.Join(dir, "sysctl.d"), ModprobeDir: filepath.Join(dir, "modprobe.d")}
	os.MkdirAll(p.SysctlDir, 0o755)
	os.MkdirAll(p.ModprobeDir, 0o755)
	sysctl := filepath.Join(p.SysctlDir, SysctlFile)
	os.WriteFile(sysctl, []byte("# mine\nvm.swappiness = 10\nnet.netfilter.nf_conntrack_max=4096\n"), 0o644)
	os.WriteFile(filepath.Join(p.ModprobeDir, ModprobeFile), []byte("options nf_conntrack expect_hashsize=64\n"), 0o644)

	files, err := p.Plan(tuneChanges)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write(files); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(sysctl)
	want := "# mine\nvm.swappiness = 10\nnet.netfilter.nf_conntrack_max = 32768\nnet.netfilter.nf_conntrack_tcp_timeout_time_wait = 30\n"
	if string(got) != want {
		t.Errorf("sysctl file:\n%s\nwant\n%s", got, want)
	}
	mod, _ := os.ReadFile(filepath.Join(p.ModprobeDir, ModprobeFile))
	if string(mod) != "options nf_conntrack expect_hashsize=64 hashsize=8192\n" {
		t.Errorf("modprobe file %q", mod)
	}
	if b, _ := os.ReadFile(sysctl + backupSuffix); !strings.Contains(string(b), "nf_conntrack_max=4096") {
		t.Errorf("no backup of the old file: %q", b)
	}
	st1, _ := os.Stat(sysctl)
	again, _ := p.Plan(tuneChanges)
	for _, f := range again {
		if f.Changed() {
			t.Errorf("second run would change %s", f.Path)
		}
	}
	p.Write(again)
	if st2, _ := os.Stat(sysctl); !st2.ModTime().Equal(st1.ModTime()) {
		t.Errorf("second run rewrote the file")
	}
	if err := p.Restore(files); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(sysctl); !strings.Contains(string(b), "nf_conntrack_max=4096") {
		t.Errorf("restore did not bring the old file back: %q", b)
	}
}

func TestShadowedWarnings(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "99-zzz-local.conf"), []byte("net.netfilter.nf_conntrack_max = 4096\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "10-early.conf"), []byte("net.netfilter.nf_conntrack_max = 1\n"), 0o644)
	conf := filepath.Join(t.TempDir(), "sysctl.conf")
	os.WriteFile(conf, []byte("# net.netfilter.nf_conntrack_tcp_timeout_time_wait = 5\nnet.netfilter.nf_conntrack_tcp_timeout_time_wait=60\n"), 0o644)
	w := Persister{SysctlDir: dir, SysctlConf: conf}.Shadowed(tuneChanges)
	if len(w) != 2 || !strings.Contains(w[0], "99-zzz-local.conf") || !strings.Contains(w[1], "sysctl.conf") {
		t.Errorf("warnings %q, want the later drop-in and sysctl.conf (not 10-early)", w)
	}
}

func TestCheckRefuses(t *testing.T) {
	proc := t.TempDir()
	for key, v := range map[string]string{knob.Max: "4096", knob.TimeWait: "120"} {
		p := kernelfs.SysctlPath(proc, key)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(v+"\n"), 0o644)
	}
	tu := &Sysctls{Proc: proc, Sys: t.TempDir()}
	if err := tu.Check([]tuning.Change{{Key: knob.Max, Proposed: "1000"}}, 4096); !errors.Is(err, ErrBelowCount) {
		t.Errorf("max below the count: %v", err)
	}
	if err := tu.Check([]tuning.Change{{Key: knob.Max, Proposed: "-1"}}, 0); !errors.Is(err, tuning.ErrBadValue) {
		t.Errorf("negative max: %v", err)
	}
	if err := tu.Check([]tuning.Change{{Key: knob.Hashsize, Proposed: "8192"}}, 0); !errors.Is(err, kernelfs.ErrUnavailable) {
		t.Errorf("hashsize without the module: %v", err)
	}
	if os.Geteuid() == 0 {
		if out, err := exec.Command("mount", "--bind", "-o", "ro", proc, proc).CombinedOutput(); err == nil {
			defer exec.Command("umount", proc).Run()
			exec.Command("mount", "-o", "remount,bind,ro", proc).Run()
			if err := tu.Check([]tuning.Change{{Key: knob.TimeWait, Proposed: "30"}}, 0); !errors.Is(err, ErrReadOnlyFS) {
				t.Errorf("read-only /proc/sys: %v", err)
			}
		} else {
			t.Logf("no read-only bind mount: %v %s", err, out)
		}
	}
}

// TestPersistLongLine: a line longer than a scanner's buffer is kept, and
// so is every line after it.
func TestPersistLongLine(t *testing.T) {
	dir := t.TempDir()
	p := Persister{SysctlDir: dir, ModprobeDir: dir}
	long := "# " + strings.Repeat("x", 100<<10)
	old := long + "\nvm.swappiness = 10\nnet.netfilter.nf_conntrack_max = 4096\nkernel.pid_max = 65536\n"
	os.WriteFile(filepath.Join(dir, SysctlFile), []byte(old), 0o644)
	files, err := p.Plan([]tuning.Change{{Key: knob.Max, Proposed: "8192"}})
	if err != nil {
		t.Fatal(err)
	}
	want := long + "\nvm.swappiness = 10\nnet.netfilter.nf_conntrack_max = 8192\nkernel.pid_max = 65536\n"
	if got := string(files[0].New); got != want {
		t.Errorf("rewrite lost lines: got %d bytes ending %q, want %d bytes", len(got), got[max(0, len(got)-80):], len(want))
	}
	os.WriteFile(filepath.Join(dir, ModprobeFile), []byte(long+"\noptions nf_conntrack expect_hashsize=64\nblacklist foo\n"), 0o644)
	files, err = p.Plan([]tuning.Change{{Key: knob.Hashsize, Proposed: "8192"}})
	if err != nil || !strings.HasSuffix(string(files[0].New), "\noptions nf_conntrack expect_hashsize=64 hashsize=8192\nblacklist foo\n") {
		t.Errorf("modprobe rewrite after a long line: %v %q", err, files[0].New[len(long):])
	}
}

func TestReadConntrackBuild(t *testing.T) {
	root := t.TempDir()
	if b := counters.ReadConntrackBuild(root); b != knob.BuildNotLoaded {
		t.Errorf("no /sys/module/nf_conntrack: %q, want a module not loaded", b)
	}
	os.MkdirAll(filepath.Join(root, "module", "nf_conntrack", "parameters"), 0o755)
	if b := counters.ReadConntrackBuild(root); b != knob.BuildBuiltin {
		t.Errorf("parameters without initstate: %q, want built-in", b)
	}
	os.WriteFile(filepath.Join(root, "module", "nf_conntrack", "initstate"), []byte("live\n"), 0o644)
	if b := counters.ReadConntrackBuild(root); b != knob.BuildModule {
		t.Errorf("with initstate: %q, want a module", b)
	}
}
