package sources

import (
	"context"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/ruleset"
)

// TestInsertWatch: the ruleset is read only in an interval where entries
// failed to insert with drops; a chain too long (insert_failed without
// drop), a full table (drop alone) and the first sample read nothing.
func TestInsertWatch(t *testing.T) {
	listed := 0
	w := insertWatch{nat: &ruleset.Reader{List: func(context.Context) ([]byte, error) {
		listed++
		return []byte("table ip t {\n\tchain c {\n\t\toif \"lo\" snat to 127.0.0.1:20000-20007\n\t}\n}\n"), nil
	}}}
	st := func(failed, chains, drop uint64) model.CTStats {
		var v model.CounterValues
		v.Set(model.InsertFailed, failed)
		v.Set(model.ChainTooLong, chains)
		v.Set(model.Drop, drop)
		return model.CTStats{PerCPU: []model.CPUCounters{{CPU: 0, Values: v}}}
	}
	t0 := time.Unix(1000, 0)
	for i, c := range []struct {
		st   model.CTStats
		read bool
	}{
		{st(5, 0, 5), false},   // the first sample: no interval yet
		{st(9, 4, 5), false},   // chains too long: no drop
		{st(9, 4, 40), false},  // a full table: drop alone
		{st(21, 4, 52), true},  // 12 inserts failed with 12 drops
		{st(21, 4, 52), false}, // quiet
	} {
		nat := w.read(c.st, t0.Add(time.Duration(i)*ruleset.RereadEvery))
		if (nat != nil) != c.read {
			t.Errorf("sample %d: NAT %+v, want read %v", i, nat, c.read)
		}
		if p, ok := nat.Narrowest(); c.read && (!ok || p.Tuples() != 8) {
			t.Errorf("sample %d: pools %+v", i, nat)
		}
	}
	if listed != 1 {
		t.Errorf("the ruleset listed %d times, want once", listed)
	}
}
