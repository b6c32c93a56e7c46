package stream

import "github.com/tablefull/tablefull/model"

// boundWho copies the probes' counts with every string bounded and every
// owner checked (limits.go bounds the lists).
func boundWho(w *model.Who) *model.Who {
	if w == nil {
		return nil
	}
	out := model.Who{OtherOpened: w.OtherOpened, OtherDrops: w.OtherDrops, Lost: w.Lost, Note: bound(w.Note), Limit: bound(w.Limit),
		Conns: make([]model.ConnFlow, 0, len(w.Conns)), Drops: make([]model.DropFlow, 0, len(w.Drops))}
	for _, c := range w.Conns {
		out.Conns = append(out.Conns, model.ConnFlow{Owner: boundOwner(c.Owner), Proto: c.Proto, Dest: bound(c.Dest), Opened: c.Opened,
			Closed: c.Closed, Failed: c.Failed, LifeSum: max(0, c.LifeSum), Life: c.Life, Secs: max(0, c.Secs)})
	}
	for _, d := range w.Drops {
		out.Drops = append(out.Drops, model.DropFlow{Owner: boundOwner(d.Owner), Src: bound(d.Src), Dest: bound(d.Dest), Proto: d.Proto, N: d.N})
	}
	return &out
}
