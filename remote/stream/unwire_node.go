package stream

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

// boundIPVS copies IPVS with its lists cut to what a sample carries and
// its text bounded.
func boundIPVS(v *model.IPVS) *model.IPVS {
	if v == nil {
		return nil
	}
	return &model.IPVS{Present: v.Present, Size: v.Size, Conns: v.Conns, Services: max(0, v.Services), ReuseMode: bound(v.ReuseMode), Note: bound(v.Note),
		Top: firstOf(v.Top, model.MaxIPVSTop, func(c tally.Count) tally.Count { return tally.Count{Key: bound(c.Key), N: max(0, c.N)} }),
		Rows: firstOf(v.Rows, model.MaxIPVSRows, func(r model.IPVSConn) model.IPVSConn {
			return model.IPVSConn{Proto: bound(r.Proto), From: bound(r.From), To: bound(r.To), Dest: bound(r.Dest), State: bound(r.State), Expires: r.Expires}
		})}
}

// boundFlushes copies Flushes with its bursts and their destinations cut
// to what a sample carries and every string bounded.
func boundFlushes(f *model.Flushes) *model.Flushes {
	if f == nil {
		return nil
	}
	out := &model.Flushes{Watching: f.Watching, Note: bound(f.Note), Deleted: f.Deleted}
	for _, b := range f.Recent[max(0, len(f.Recent)-model.MaxFlushes):] {
		out.Recent = append(out.Recent, model.Flush{From: b.From, To: b.To, Entries: b.Entries, UDP: min(b.UDP, b.Entries), UnderWay: b.UnderWay,
			Dests: firstOf(b.Dests, model.MaxFlushDests, func(d model.FlushDest) model.FlushDest {
				return model.FlushDest{Dest: bound(d.Dest), Entries: min(d.Entries, b.Entries), Service: bound(d.Service)}
			})})
	}
	return out
}
