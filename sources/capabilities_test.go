package sources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// TestMissingCapabilities: a process with only CAP_SYSLOG and
// CAP_NET_ADMIN (the unit's grant before the namespaces and the probes
// needed more) is told what it cannot read and which capability would
// read it; one with every capability is told nothing.
func TestMissingCapabilities(t *testing.T) {
	proc := t.TempDir()
	os.MkdirAll(filepath.Join(proc, "self"), 0o755)
	status := func(capEff string) {
		os.WriteFile(filepath.Join(proc, "self", "status"), []byte("Name:\ttablefull\nCapEff:\t"+capEff+"\n"), 0o644)
	}
	status("0000000400001000") // CAP_SYSLOG (34) and CAP_NET_ADMIN (12)
	got := strings.Join(MissingCapabilities(kernelfs.Roots{Proc: proc}), "\n")
	for _, want := range []string{"CAP_SYS_PTRACE", `tablefull_up{part="namespaces"} 0`, "CAP_BPF and CAP_PERFMON"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing capabilities do not say %q:\n%s", want, got)
		}
	}
	status("000001ffffffffff")
	if got := MissingCapabilities(kernelfs.Roots{Proc: proc}); len(got) != 0 {
		t.Errorf("every capability, still told %q", got)
	}
}
