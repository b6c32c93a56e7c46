package story

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
)

func TestCaption(t *testing.T) {
	frame := func(peak, max uint64, pinned bool, drops uint64, syn float64) diagnose.Frame {
		return diagnose.Frame{Sample: model.Sample{Time: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Conntrack: model.Conntrack{Status: model.TableTracked, Count: peak, Peak: peak, Max: max}},
			Rates: model.Rates{CTTotal: model.CountersOf(map[model.Counter]uint64{model.Drop: drops}), SynRetransPS: syn}, Pinned: pinned}
	}
	tests := []struct {
		name      string
		prev, cur diagnose.Frame
		want      string
	}{
		{"quiet", frame(500, 4096, false, 0, 0), frame(510, 4096, false, 0, 0), ""},
		{"climbing", frame(952, 4096, false, 0, 0), frame(1678, 4096, false, 0, 0), "climbing: 726 more tracked connections in the interval to 00:00:00"},
		{"pinned", frame(3936, 4096, false, 0, 0), frame(4096, 4096, true, 12, 0), "Pinned at nf_conntrack_max = 4,096"},
		{"drops, of their interval: the caption stands on frames after it", frame(4096, 4096, true, 0, 0), frame(4096, 4096, true, 540, 0), "540 packets dropped in the interval to 00:00:00"},
		{"syn ladder", frame(4096, 4096, true, 5, 0), frame(4096, 4096, true, 5, 30), "From 00:00:00 clients retransmit their SYNs and wait 1, 2, 4, 8 s"},
		{"the fix", frame(4096, 4096, true, 5, 30), frame(4096, 65536, false, 0, 30), "raised from 4,096 to 65,536"},
		{"room again", frame(200, 200, true, 5, 0), frame(150, 200, false, 0, 0), "room again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Caption(tt.prev, tt.cur)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Caption = %q, want one containing %q", got, tt.want)
			}
		})
	}
}
