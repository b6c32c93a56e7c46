package tune

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/remote/stream"
	"github.com/tablefull/tablefull/sources/tune"
)

// tempKnobs is a host made of plain files: the knobs under proc/sys and
// sys/module, and empty /etc drop-in directories, all in a temp dir.
type tempKnobs struct {
	root, sysctlDir, modprobeDir, stateDir string
}

func newTempKnobs(t testing.TB) *tempKnobs {
	t.Helper()
	root := t.TempDir()
	if out, err := exec.Command("cp", "-a", "../../../../testdata/hosts/healthy/.", root).CombinedOutput(); err != nil {
		t.Fatalf("copy fixture host: %v %s", err, out)
	}
	k := &tempKnobs{root: root, sysctlDir: filepath.Join(root, "etc/sysctl.d"),
		modprobeDir: filepath.Join(root, "etc/modprobe.d"), stateDir: filepath.Join(root, "state")}
	files := map[string]string{
		"proc/sys/net/netfilter/nf_conntrack_max":                   "4096\n",
		"proc/sys/net/netfilter/nf_conntrack_buckets":               "4096\n",
		"proc/sys/net/netfilter/nf_conntrack_tcp_timeout_time_wait": "120\n",
		"proc/sys/net/core/somaxconn":                               "4096\n",
		"proc/sys/net/ipv4/tcp_max_syn_backlog":                     "1024\n",
		"proc/sys/net/ipv4/ip_local_port_range":                     "32768\t60999\n",
		"proc/sys/net/ipv4/tcp_tw_reuse":                            "2\n",
		"sys/module/nf_conntrack/parameters/hashsize":               "4096\n",
	}
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{k.sysctlDir, k.modprobeDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

func (k *tempKnobs) tuner() *tune.Local {
	return &tune.Local{Tuner: &tune.Sysctls{Proc: filepath.Join(k.root, "proc"), Sys: filepath.Join(k.root, "sys")},
		StateDir: k.stateDir,
		Pers:     tune.Persister{SysctlDir: k.sysctlDir, ModprobeDir: k.modprobeDir, SysctlConf: filepath.Join(k.root, "etc/sysctl.conf")}}
}

// serve runs the agent's control loop, as root, over input.
func (k *tempKnobs) serve(t testing.TB, input string) []agent.Reply {
	return k.serveWith(t, &tune.Control{Tuner: k.tuner()}, input)
}

// serveWith runs ag's control loop, as root, over input.
func (k *tempKnobs) serveWith(t testing.TB, ag *tune.Control, input string) []agent.Reply {
	var replies []agent.Reply
	agent.Serve(strings.NewReader(input), ag, true, func(ev stream.Event) error {
		var r agent.Reply
		if err := json.Unmarshal([]byte(ev.Text), &r); err != nil {
			t.Fatalf("reply %q: %v", ev.Text, err)
		}
		replies = append(replies, r)
		return nil
	}, &bytes.Buffer{})
	return replies
}

// ourLine is every line tablefull writes into a drop-in file or a knob.
var ourLine = regexp.MustCompile(`^(# Written by tablefull .*|[a-z0-9_.]+ = [0-9]+( [0-9]+)?|options nf_conntrack hashsize=[0-9]+|[0-9]+(\t[0-9]+)?)$`)

// knobOrConf reports whether path is a knob or a drop-in file.
func (k *tempKnobs) knobOrConf(path string) bool {
	for _, dir := range []string{"proc/sys/net/netfilter/", "proc/sys/net/core/", "proc/sys/net/ipv4/", "sys/module/", "etc/"} {
		if strings.HasPrefix(path, filepath.Join(k.root, dir)+"/") {
			return true
		}
	}
	return false
}

// checkOnlyOurs fails when any file under the temp host holds a line
// tablefull would not render.
func (k *tempKnobs) checkOnlyOurs(t testing.TB) {
	t.Helper()
	filepath.WalkDir(k.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !k.knobOrConf(path) {
			return err
		}
		b, _ := os.ReadFile(path)
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if !ourLine.MatchString(line) {
				t.Fatalf("%s holds a line tablefull does not write: %q", path, line)
			}
		}
		return nil
	})
}

// TestAgentPersistValidates: the review's requests, sent to an agent
// running as root with confirm, write nothing; a valid persist writes the
// re-rendered value, and undo removes it again.
func TestAgentPersistValidates(t *testing.T) {
	k := newTempKnobs(t)
	hostile := []string{
		`{"op":"persist","id":1,"confirm":true,"changes":[{"key":"kernel.core_pattern","proposed":"|/tmp/pwn %p"}]}`,
		`{"op":"persist","id":2,"confirm":true,"changes":[{"key":"net.netfilter.nf_conntrack_max","proposed":"1\nkernel.modprobe = /tmp/evil"}]}`,
		`{"op":"persist","id":3,"confirm":true,"changes":[{"key":"nf_conntrack.hashsize","proposed":"1\ninstall nf_conntrack /bin/sh -c 'id > /tmp/owned'"}]}`,
	}
	for i, r := range k.serve(t, strings.Join(hostile, "\n")+"\n") {
		if r.Error == "" {
			t.Errorf("hostile persist %d was accepted: %+v", i+1, r)
		}
	}
	for _, d := range []string{k.sysctlDir, k.modprobeDir} {
		if entries, _ := os.ReadDir(d); len(entries) != 0 {
			t.Fatalf("%s: a hostile persist wrote %v", d, entries)
		}
	}
	reps := k.serve(t, `{"op":"persist","id":4,"confirm":true,"changes":[{"key":"net.netfilter.nf_conntrack_max","proposed":"032768"},{"key":"nf_conntrack.hashsize","proposed":"32768"}]}`+"\n")
	if len(reps) != 1 || reps[0].Error != "" || len(reps[0].Files) != 2 {
		t.Fatalf("valid persist: %+v", reps)
	}
	k.checkOnlyOurs(t)
	b, _ := os.ReadFile(filepath.Join(k.sysctlDir, tune.SysctlFile))
	if !strings.Contains(string(b), knob.Max+" = 32768\n") {
		t.Errorf("persisted file:\n%s", b)
	}
}

// FuzzControlRequest sends one arbitrary request line to an agent running
// as root over temp files: whatever it says, every file tablefull may
// touch holds only lines tablefull renders.
func FuzzControlRequest(f *testing.F) {
	for _, s := range []string{
		`{"op":"persist","id":1,"confirm":true,"changes":[{"key":"net.netfilter.nf_conntrack_max","proposed":"8192"}]}`,
		`{"op":"apply","id":1,"confirm":true,"changes":[{"key":"net.ipv4.ip_local_port_range","proposed":"1024-65535"}],"count":1}`,
		`{"op":"persist","id":1,"confirm":true,"changes":[{"key":"nf_conntrack.hashsize","proposed":"1\ninstall x"}]}`,
		`{"op":"undo","id":1,"confirm":true}`,
		`{"op":"knobs","id":1}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		k := newTempKnobs(t)
		k.serve(t, line+"\n"+`{"op":"undo","id":9,"confirm":true}`+"\n")
		k.checkOnlyOurs(t)
	})
}

// TestAgentJunkStdin: junk without newlines on the agent's stdin (here a
// megabyte of zeros) ends it with a clear error and a non-zero exit, never
// a silent exit 0.
func TestAgentJunkStdin(t *testing.T) {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "agent", "--interval", "100ms")
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	cmd.Stdin = bytes.NewReader(make([]byte, 1<<20))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 || !strings.Contains(stderr.String(), "request line too long") {
		t.Errorf("agent < zeros: %v, stderr %q", err, stderr.String())
	}
}

// TestAgentEnforcesItsOwnLimits: an agent takes neither the request's
// count nor its silence on memory: it re-reads the live count and refuses
// a cap below it (nf_conntrack_max=1 with a count of 0 in the request),
// refuses a table over the memory rule (a 2 GiB hashsize on 512 MiB),
// for an apply and for a persist that would survive a reboot, and writes
// nothing for either; a sound change still goes through.
func TestAgentEnforcesItsOwnLimits(t *testing.T) {
	k := newTempKnobs(t)
	ag := &tune.Control{Tuner: k.tuner(), MemTotal: 512 << 20, CountNow: func() (uint64, error) { return 3000, nil }}
	replies := k.serveWith(t, ag, strings.Join([]string{
		`{"op":"apply","id":1,"confirm":true,"count":0,"changes":[{"key":"net.netfilter.nf_conntrack_max","proposed":"1"}]}`,
		`{"op":"apply","id":2,"confirm":true,"changes":[{"key":"nf_conntrack.hashsize","proposed":"268435456"}]}`,
		`{"op":"persist","id":3,"confirm":true,"changes":[{"key":"net.netfilter.nf_conntrack_max","proposed":"1"}]}`,
		`{"op":"persist","id":4,"confirm":true,"changes":[{"key":"nf_conntrack.hashsize","proposed":"268435456"}]}`,
	}, "\n"))
	if len(replies) != 4 {
		t.Fatalf("%d replies, want 4", len(replies))
	}
	for _, r := range replies {
		if !strings.Contains(r.Error, "refused on the agent") || len(r.Results) > 0 || len(r.Files) > 0 {
			t.Errorf("request %d: %+v, want refused on the agent with nothing written", r.ID, r)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(k.root, "proc/sys/net/netfilter/nf_conntrack_max")); string(b) != "4096\n" {
		t.Errorf("nf_conntrack_max now %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(k.root, "sys/module/nf_conntrack/parameters/hashsize")); string(b) != "4096\n" {
		t.Errorf("hashsize now %q", b)
	}
	if ents, _ := os.ReadDir(k.sysctlDir); len(ents) > 0 {
		t.Errorf("persisted %v", ents)
	}
	ok := k.serveWith(t, ag, `{"op":"apply","id":5,"confirm":true,"changes":[{"key":"net.netfilter.nf_conntrack_max","proposed":"8192"}]}`)
	if len(ok) != 1 || ok[0].Error != "" || len(ok[0].Results) != 1 || !ok[0].Results[0].Verified {
		t.Errorf("a sound change: %+v", ok)
	}
}
