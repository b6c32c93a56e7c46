package incident

import (
	"math"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestOverall: the workload over every frame, each rate over the frames
// that read its part, and a part no frame read left unread (not zero).
func TestOverall(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	samples := incidentSamples(t0)
	for i := range samples {
		samples[i].Absent = samples[i].Absent.With(model.PartDisks) // the disks were never read
	}
	o := runIncident(samples).Overall
	secs := samples[len(samples)-1].Time.Sub(samples[0].Time).Seconds()
	last := samples[len(samples)-1]
	var drops uint64
	for _, c := range last.CTStats.PerCPU {
		drops += c.Values.Get(model.Drop)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9*max(1, want) }
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"time tracked", o.Tracked, secs},
		{"drops/s", o.DropsPS, float64(drops) / secs},
		{"SYN retransmits/s", o.SynRetransPS, float64(last.TCP.SynRetrans) / secs},
		{"TCP's time", o.TCP, secs},
		{"new entries/s (the TCP opens)", o.NewEntriesPS, 80},
		{"CPU busy %", o.BusyPct, 2},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if o.Disks != 0 || o.DiskUtilPct != 0 {
		t.Errorf("no sample read the disks: %v s at %v%%", o.Disks, o.DiskUtilPct)
	}
	if o.First.Max != 256 {
		t.Errorf("the first tracked table's cap %d, want 256", o.First.Max)
	}
}
