package report

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestReportNamesWhoChurns: a recording whose samples carry the probes'
// counts tells who opened the connections, how short they lived, the
// finding, and whose packets were dropped, with the names escaped.
func TestReportNamesWhoChurns(t *testing.T) {
	var samples []model.Sample
	duck := model.Owner{Comm: "duck|db<i>", PID: 4242, Group: "ingest.service", Kind: "unit"}
	for i := range 10 {
		s := model.Sample{Time: time.Date(2026, 12, 1, 9, 0, i, 0, time.UTC), Interval: time.Second,
			Conntrack: model.Conntrack{Status: model.TableTracked, Count: 4096, Peak: 4096, Max: 4096, Buckets: 4096, TimeWaitHold: 120},
			Who: &model.Who{Conns: []model.ConnFlow{{Owner: duck, Dest: "10.5.5.14:3900", Opened: 120, Closed: 30, Failed: 80,
				Life: [model.LifeBuckets]uint32{0, 0, 0, 30}}},
				Drops: []model.DropFlow{{Owner: model.Owner{Group: "ingest.service", Kind: "unit"}, Src: "10.0.0.1", Dest: "10.5.5.14:3900", Proto: 6, N: 90}}}}
		samples = append(samples, s)
	}
	md := markdownOf(t, model.Host{Name: "node-7"}, samples)
	for _, want := range []string{"## Who opened the connections", `100 % of new connections from "duck\|db&lt;i&gt;" (pid 4242, ingest.service) to 10.5.5.14:3900 (120/s`,
		model.OnePerRequest, "| under 8 ms |", "| 10.0.0.1 | 10.5.5.14:3900 | 810 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md[strings.Index(md, "## Who"):])
		}
	}
}
