package sources

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/ruleset"
)

// insertWatch reads the ruleset's source NAT when entries failed to
// insert with drops since the previous sample — a clash, or a NAT with
// no free source port — and only then: the verdict tells the two apart.
type insertWatch struct {
	nat          *ruleset.Reader
	failed, drop uint64
	seen         bool
}

// read is the NAT at now when the counters in st say entries failed to
// insert since the previous call, nil otherwise.
func (w *insertWatch) read(st model.CTStats, now time.Time) *model.NAT {
	if w.nat == nil || len(st.PerCPU) == 0 {
		return nil
	}
	var failed, chains, drop uint64
	for _, r := range st.PerCPU {
		failed += r.Values.Get(model.InsertFailed)
		chains += r.Values.Get(model.ChainTooLong)
		drop += r.Values.Get(model.Drop)
	}
	failed -= min(failed, chains) // a chain too long fails the insert without a drop
	rose := w.seen && failed > w.failed && drop > w.drop
	w.failed, w.drop, w.seen = failed, drop, true
	if !rose {
		return nil
	}
	return w.nat.Read(now)
}
