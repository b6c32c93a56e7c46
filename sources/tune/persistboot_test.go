package tune

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// bootRoots is a fixture host: /etc empty, the kernel's knobs under proc
// and sys, nf_conntrack a module when module, else built in.
func bootRoots(t *testing.T, module bool) kernelfs.Roots {
	root := t.TempDir()
	r := kernelfs.Roots{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys"), Etc: filepath.Join(root, "etc")}
	params := filepath.Join(r.Sys, "module", "nf_conntrack", "parameters")
	os.MkdirAll(params, 0o755)
	os.WriteFile(filepath.Join(params, "hashsize"), []byte("8192\n"), 0o644)
	if module {
		os.WriteFile(filepath.Join(r.Sys, "module", "nf_conntrack", "initstate"), []byte("live\n"), 0o644)
	}
	nf := filepath.Join(r.Proc, "sys", "net", "netfilter")
	os.MkdirAll(nf, 0o755)
	os.WriteFile(filepath.Join(nf, "nf_conntrack_max"), []byte("32768\n"), 0o644)
	os.WriteFile(filepath.Join(nf, "nf_conntrack_tcp_timeout_time_wait"), []byte("30\n"), 0o644)
	return r
}

// TestPersistByKernelBuild: a module's sysctls get the udev rule that
// applies them when it loads and its hashsize a modprobe.d option; a
// built-in one's hashsize a tmpfiles.d line (modprobe.d is never read for
// it). Every file is planned, written, managed and restored by undo.
func TestPersistByKernelBuild(t *testing.T) {
	for _, c := range []struct {
		module bool
		files  map[string]string // file under etc → a line it must hold
		absent []string
	}{
		{true, map[string]string{
			"sysctl.d/99-tablefull.conf":                "net.netfilter.nf_conntrack_max = 32768",
			"udev/rules.d/99-tablefull-conntrack.rules": `ACTION=="add", SUBSYSTEM=="module", KERNEL=="nf_conntrack", RUN+="`,
			"modprobe.d/tablefull.conf":                 "options nf_conntrack hashsize=8192",
		}, []string{"tmpfiles.d/tablefull.conf"}},
		{false, map[string]string{
			"sysctl.d/99-tablefull.conf": "net.netfilter.nf_conntrack_max = 32768",
			"tmpfiles.d/tablefull.conf":  "w /sys/module/nf_conntrack/parameters/hashsize - - - - 8192",
		}, []string{"udev/rules.d/99-tablefull-conntrack.rules", "modprobe.d/tablefull.conf"}},
	} {
		r := bootRoots(t, c.module)
		p := PersisterAt(r)
		if p.Build.IsModule() != c.module {
			t.Fatalf("build %q, want module %v", p.Build, c.module)
		}
		plan, err := p.Plan(tuneChanges)
		if err != nil {
			t.Fatal(err)
		}
		written, err := p.Write(plan)
		if err != nil || len(written) != len(c.files) {
			t.Fatalf("%s: wrote %d files (%v), want %d", p.Build, len(written), err, len(c.files))
		}
		for name, line := range c.files {
			b, err := os.ReadFile(filepath.Join(r.Etc, name))
			if err != nil || !strings.Contains(string(b), line) {
				t.Errorf("%s: %s holds %q (%v), want a line %q", p.Build, name, b, err, line)
			}
		}
		for _, name := range c.absent {
			if _, err := os.Stat(filepath.Join(r.Etc, name)); err == nil {
				t.Errorf("%s: %s written", p.Build, name)
			}
		}
		again, _ := p.Plan(tuneChanges) // twice changes nothing
		for _, f := range again {
			if f.Changed() {
				t.Errorf("%s: a second persist would change %s", p.Build, f.Path)
			}
		}
		if err := p.Restore(written); err != nil {
			t.Fatal(err)
		}
		for name := range c.files {
			if _, err := os.Stat(filepath.Join(r.Etc, name)); err == nil {
				t.Errorf("%s: undo left %s", p.Build, name)
			}
		}
	}
}

// TestOwnedLinesKept: the udev and tmpfiles files keep lines tablefull
// does not own, and its own line once.
func TestOwnedLinesKept(t *testing.T) {
	old := []byte("# mine\nw /sys/kernel/mm/transparent_hugepage/enabled - - - - never\nw /sys/module/nf_conntrack/parameters/hashsize - - - - 1024\n")
	got := string(setOwnedLine(old, func(l string) bool { _, ok := tmpfilesHashsize(l); return ok }, tmpfilesLine("65536")))
	want := "# mine\nw /sys/kernel/mm/transparent_hugepage/enabled - - - - never\nw /sys/module/nf_conntrack/parameters/hashsize - - - - 65536\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// persistedRoots is a booted fixture host where tuneChanges are persisted.
func persistedRoots(t *testing.T) (kernelfs.Roots, Persister) {
	t.Helper()
	r := bootRoots(t, true)
	p := PersisterAt(r)
	plan, _ := p.Plan(tuneChanges)
	if _, err := p.Write(plan); err != nil {
		t.Fatal(err)
	}
	return r, p
}

// TestDriftReadsOnlyPersistedKnobs: the check reads the knobs tablefull
// persisted and no other. Here a knob it did not persist is a FIFO, whose
// open would wait for a writer: reading every knob would hang.
func TestDriftReadsOnlyPersistedKnobs(t *testing.T) {
	r, p := persistedRoots(t)
	unpersisted := filepath.Join(r.Proc, "sys", "net", "netfilter", "nf_conntrack_udp_timeout")
	os.Remove(unpersisted)
	if err := syscall.Mkfifo(unpersisted, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(unpersisted)
	done := make(chan *knob.Drifts, 1)
	go func() { done <- (&DriftCheck{Pers: p, Sysctls: NewSysctls(r), Proc: r.Proc}).Read(time.Unix(100, 0)) }()
	select {
	case d := <-done:
		if d == nil || len(d.Checked) != 3 {
			t.Errorf("drift %+v, want the 3 persisted knobs checked", d)
		}
	case <-time.After(3 * time.Second):
		f, _ := os.OpenFile(unpersisted, os.O_WRONLY, 0) // let the stuck read go
		f.Close()
		t.Fatal("the check read a knob nothing persisted")
	}
}

// TestDriftCheck: a persisted nf_conntrack_max that reads otherwise live
// is drift, naming the later sysctl.d file that sets it; a knob that
// holds is checked and not drifted; an unreadable persisted file is no
// check at all rather than "no drift".
func TestDriftCheck(t *testing.T) {
	r, p := persistedRoots(t)
	check := &DriftCheck{Pers: p, Sysctls: NewSysctls(r), Proc: r.Proc}
	if d := check.Read(time.Unix(100, 0)); d == nil || len(d.Checked) != 3 || len(d.Drifted) != 0 {
		t.Fatalf("all held: %+v, want 3 checked, none drifted", d)
	}
	os.WriteFile(filepath.Join(r.Proc, "sys", "net", "netfilter", "nf_conntrack_max"), []byte("4096\n"), 0o644)
	os.WriteFile(filepath.Join(r.Etc, "sysctl.d", "99-zz-local.conf"), []byte("net.netfilter.nf_conntrack_max = 4096\n"), 0o644)
	if d := check.Read(time.Unix(105, 0)); len(d.Drifted) != 0 {
		t.Errorf("read again before DriftEvery: %+v", d)
	}
	d := check.Read(time.Unix(111, 0))
	if d == nil || len(d.Drifted) != 1 || d.Drifted[0].Knob != knob.Max || d.Drifted[0].Live != "4096" || d.Drifted[0].Persisted != "32768" {
		t.Fatalf("drift %+v, want nf_conntrack_max 32768 → 4096", d)
	}
	if w := d.Drifted[0].Writers; len(w) != 1 || !strings.Contains(w[0], "99-zz-local.conf (4096)") {
		t.Errorf("writers %v, want the later sysctl.d file", w)
	}
	mine := filepath.Join(r.Etc, "sysctl.d", "99-tablefull.conf")
	os.Remove(mine)
	os.Mkdir(mine, 0o755) // unreadable as a file, even as root
	if d := check.Read(time.Unix(200, 0)); d != nil {
		t.Errorf("unreadable persisted file: %+v, want no check", d)
	}
}
