package oneshot

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/units"
)

// TestWriteSnapshotUnits: snapshot's text speaks the console's units
// and separators, and says what it did not read.
func TestWriteSnapshotUnits(t *testing.T) {
	var b bytes.Buffer
	s := model.Sample{Disks: []model.DiskIO{{Name: "vda", Reads: 66844, Writes: 2633, BusyMillis: 90500}},
		TCP: model.TCP{SynRetrans: 1234567}, Kernel: model.KernelLog{Readable: true, Suppressed: 708121}}
	if err := WriteSnapshot(&b, Snapshot{Host: model.Host{Name: "vm", CPUs: 2, MemTotal: 24684092 << 10}, Sample: s}, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{units.Bytes(24684092<<10) + " RAM", "reads 66,844", "SYN retransmits 1,234,567", "local ports not read", "busy 1 m 31 s", "708,121 suppressed"} {
		if !strings.Contains(out, want) {
			t.Errorf("snapshot text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, " kB") {
		t.Errorf("snapshot text in kB:\n%s", out)
	}
}
