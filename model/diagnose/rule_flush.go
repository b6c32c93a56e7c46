package diagnose

import (
	"github.com/tablefull/tablefull/model/verdict"
)

// ruleFlushed: ENTRIES FLUSHED holds for FlushShown after user space
// deleted FlushMin or more entries a second. The flows of those entries
// are tracked again from their next packet: a TCP flow mid-stream may be
// judged invalid, a UDP flow NATed anew (to a Service's new endpoint, the
// point of kube-proxy's cleanup, or not, when the flush was not meant).
func ruleFlushed(in Inputs) (verdict.Verdict, bool) {
	f := in.Sample.Flushes.Latest(in.Sample.Time)
	if f == nil {
		return verdict.Verdict{}, false
	}
	return says(append(f.Clauses(), say(verdict.Explain, "flush.meaning"))...), true
}
