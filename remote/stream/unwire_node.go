package stream

import "github.com/tablefull/tablefull/model"

// boundIPVS copies IPVS with its lists cut to what a sample carries and
// its text bounded.
func boundIPVS(v *model.IPVS) *model.IPVS {
	if v == nil {
		return nil
	}
	out := &model.IPVS{Present: v.Present, Size: v.Size, Conns: v.Conns, Services: max(0, v.Services), ReuseMode: bound(v.ReuseMode), Note: bound(v.Note)}
	for _, c := range v.Top[:min(len(v.Top), model.MaxIPVSTop)] {
		out.Top = append(out.Top, model.Count{Key: bound(c.Key), N: max(0, c.N)})
	}
	for _, r := range v.Rows[:min(len(v.Rows), model.MaxIPVSRows)] {
		out.Rows = append(out.Rows, model.IPVSConn{Proto: bound(r.Proto), From: bound(r.From), To: bound(r.To), Dest: bound(r.Dest), State: bound(r.State), Expires: r.Expires})
	}
	return out
}

// boundFlushes copies Flushes with its bursts and their destinations cut
// to what a sample carries and every string bounded.
func boundFlushes(f *model.Flushes) *model.Flushes {
	if f == nil {
		return nil
	}
	out := &model.Flushes{Watching: f.Watching, Note: bound(f.Note), Deleted: f.Deleted}
	for _, b := range f.Recent[max(0, len(f.Recent)-model.MaxFlushes):] {
		c := model.Flush{From: b.From, To: b.To, Entries: b.Entries, UDP: min(b.UDP, b.Entries), UnderWay: b.UnderWay}
		for _, d := range b.Dests[:min(len(b.Dests), model.MaxFlushDests)] {
			c.Dests = append(c.Dests, model.FlushDest{Dest: bound(d.Dest), Entries: min(d.Entries, b.Entries), Service: bound(d.Service)})
		}
		out.Recent = append(out.Recent, c)
	}
	return out
}
