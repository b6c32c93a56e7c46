package counters

import (
	"testing"

	"github.com/prometheus/procfs"
)

// TestCPUAgreesWithProcfs: on the fixture host and this host, the
// in-place reader gives the CPUs prometheus/procfs's Stat gives, in
// seconds (this host's read after procfs's: never less).
func TestCPUAgreesWithProcfs(t *testing.T) {
	for _, root := range []string{"../../testdata/hosts/healthy/proc", "/proc"} {
		fs, err := procfs.NewFS(root)
		if err != nil {
			t.Fatal(err)
		}
		st, err := fs.Stat()
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		c, _ := NewCPU(root)
		got, err := c.Read()
		c.Close()
		if err != nil || len(got) != len(st.CPU) {
			t.Fatalf("%s: %d CPUs (%v), procfs %d", root, len(got), err, len(st.CPU))
		}
		for _, g := range got {
			w := st.CPU[int64(g.CPU)]
			if g.User < w.User || g.System < w.System || g.Idle < w.Idle || g.Steal < w.Steal || g.User > w.User+100 {
				t.Errorf("%s cpu%d: %+v, procfs %+v", root, g.CPU, g, w)
			}
		}
	}
}
