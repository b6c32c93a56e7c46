package stream

import "github.com/tablefull/tablefull/model"

// boundWho copies the probes' counts with every string bounded and every
// owner checked (limits.go bounds the lists).
func boundWho(w *model.Who) *model.Who {
	if w == nil {
		return nil
	}
	return &model.Who{OtherOpened: w.OtherOpened, OtherDrops: w.OtherDrops, Lost: w.Lost, Note: bound(w.Note), Limit: bound(w.Limit),
		DropsSplit: w.DropsSplit, DroppedByRules: w.DroppedByRules,
		Conns: eachOf(w.Conns, func(c model.ConnFlow) model.ConnFlow {
			return model.ConnFlow{Owner: boundOwner(c.Owner), Proto: c.Proto, Dest: bound(c.Dest), Opened: c.Opened,
				Closed: c.Closed, Failed: c.Failed, LifeSum: max(0, c.LifeSum), Life: c.Life, Secs: max(0, c.Secs)}
		}),
		Drops: eachOf(w.Drops, func(d model.DropFlow) model.DropFlow {
			return model.DropFlow{Owner: boundOwner(d.Owner), Src: bound(d.Src), Dest: bound(d.Dest), Proto: d.Proto, N: d.N}
		})}
}
