package diagnose

import (
	"slices"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestInvalidIsNotTableFull: packets a tracker finds invalid read
// INVALID; the drops a tracker makes beside them, far from the cap and
// with no "table full" line, are not TABLE FULL; the kernel's line makes
// them the table's again; a late retransmit now and then is nothing.
func TestInvalidIsNotTableFull(t *testing.T) {
	rates := func(invalid, drop uint64) model.Rates {
		r := idle()
		r.CTTotal.Set(model.Invalid, invalid)
		r.CTTotal.Set(model.Drop, drop)
		return r
	}
	saidFull := table(300, 300, 4096)
	saidFull.Kernel.Lines = []model.KernelLine{{Text: "nf_conntrack: nf_conntrack: table full, dropping packet"}}
	for _, c := range []struct {
		name       string
		in         Inputs
		want, lack []verdict.Kind
		says       string
	}{
		{"invalid, nothing dropped", Inputs{Sample: table(300, 300, 4096), Rates: rates(50, 0)}, []verdict.Kind{verdict.InvalidPackets}, []verdict.Kind{verdict.TableFull}, "50 packets/s conntrack found invalid"},
		{"the tracker's drops", Inputs{Sample: table(300, 300, 4096), Rates: rates(50, 50)}, []verdict.Kind{verdict.InvalidPackets}, []verdict.Kind{verdict.TableFull}, "50 of them dropped by the tracker itself"},
		{"the kernel says full", Inputs{Sample: saidFull, Rates: rates(50, 50)}, []verdict.Kind{verdict.TableFull, verdict.InvalidPackets}, nil, ""},
		{"a late retransmit", Inputs{Sample: table(300, 300, 4096), Rates: rates(0, 0)}, nil, []verdict.Kind{verdict.InvalidPackets}, ""},
	} {
		vs := Judge(c.in)
		var kinds []verdict.Kind
		var all string
		for _, v := range vs {
			kinds, all = append(kinds, v.Kind), all+v.Text()+" | "
		}
		for _, k := range c.want {
			if !slices.Contains(kinds, k) {
				t.Errorf("%s: %v lacks %s", c.name, kinds, k)
			}
		}
		for _, k := range c.lack {
			if slices.Contains(kinds, k) {
				t.Errorf("%s: %v holds %s: %s", c.name, kinds, k, all)
			}
		}
		if !strings.Contains(all, c.says) {
			t.Errorf("%s: %q lacks %q", c.name, all, c.says)
		}
	}
}
