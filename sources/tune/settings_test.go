package tune

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// TestSettle: a scenario's sysctls are written through the one writer:
// a knob checked and read back, another network sysctl as a number; a
// global knob, a sysctl outside the network's and a value that is not a
// number are refused before anything of the settings asked with them is
// written.
func TestSettle(t *testing.T) {
	proc := t.TempDir()
	files := map[string]string{knob.TimeWait: "120", knob.Max: "4096", "net.netfilter.nf_conntrack_tcp_timeout_established": "432000", "kernel.panic": "0"}
	for key, v := range files {
		path := kernelfs.SysctlPath(proc, key)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := NewSysctls(kernelfs.Roots{Proc: proc, Sys: t.TempDir()})
	read := func(key string) string {
		v, _ := kernelfs.ReadSysctl(kernelfs.SysctlPath(proc, key))
		return v
	}
	if err := w.Settle(map[string]string{knob.TimeWait: "1", "net.netfilter.nf_conntrack_tcp_timeout_established": "60"}); err != nil {
		t.Fatal(err)
	}
	if read(knob.TimeWait) != "1" || read("net.netfilter.nf_conntrack_tcp_timeout_established") != "60" {
		t.Errorf("not written: %s, %s", read(knob.TimeWait), read("net.netfilter.nf_conntrack_tcp_timeout_established"))
	}
	for _, bad := range []map[string]string{
		{knob.Max: "256"},
		{"kernel.panic": "1"},
		{"net.netfilter.nf_conntrack_tcp_timeout_established": "sixty"},
		{knob.TimeWait: "0"},
		{"net.netfilter.nf_conntrack_tcp_timeout_established": "30", knob.Max: "256"},
		{"net.netfilter.nf_conntrack_tcp_timeout_established": "30", knob.TimeWait: "0"},
		{"net.netfilter.nf_conntrack_tcp_timeout_established": "30", "kernel.panic": "1"},
	} {
		if err := w.Settle(bad); err == nil {
			t.Errorf("%v: written", bad)
		}
	}
	if read(knob.Max) != "4096" || read("kernel.panic") != "0" || read(knob.TimeWait) != "1" || read("net.netfilter.nf_conntrack_tcp_timeout_established") != "60" {
		t.Errorf("a refused setting was written")
	}
}
