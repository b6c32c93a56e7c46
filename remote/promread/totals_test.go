package promread

import (
	"testing"

	pmodel "github.com/prometheus/common/model"

	"github.com/tablefull/tablefull/model/verdict"
)

// TestReadTotals: the totals' answer read back: each host by its worst
// verdict, the scored ones split by their drops term, and the hosts that
// serve a worst verdict but no score counted as unscored, not as quiet.
func TestReadTotals(t *testing.T) {
	series := func(v float64, labels ...string) *pmodel.Sample {
		m := pmodel.Metric{}
		for i := 0; i+1 < len(labels); i += 2 {
			m[pmodel.LabelName(labels[i])] = pmodel.LabelValue(labels[i+1])
		}
		return &pmodel.Sample{Metric: m, Value: pmodel.SampleValue(v)}
	}
	got := readTotals(pmodel.Vector{
		series(3, "m", "kind", "kind", "table_full"),
		series(10, "m", "kind", "kind", "ok"),
		series(12, "m", "hosts", "stale", "0"),
		series(1, "m", "hosts", "stale", "1"),
		series(3, "m", "pinned"),
		series(2, "m", "scored", "dropping", "1"),
		series(9, "m", "scored", "dropping", "0"),
	})
	if got.Hosts != 13 || got.Stale != 1 || got.Pinned != 3 || got.Kinds[verdict.TableFull] != 3 || got.Kinds[verdict.OK] != 10 {
		t.Errorf("totals %+v", got)
	}
	if got.Dropping != 2 || got.Unscored != 2 {
		t.Errorf("%d dropping and %d unscored, want 2 of the 11 scored dropping and 2 of the 13 serving a verdict unscored", got.Dropping, got.Unscored)
	}
}
