package cilium

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cilium/ebpf"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

// metricsMap is the map Cilium counts its forwarded and dropped packets
// in, by reason and direction.
const metricsMap = "cilium_metrics"

// The layout of cilium_metrics tablefull reads (Cilium's bpf/lib/common.h,
// struct metrics_key and struct metrics_value, the same size from v1.10
// through v1.16): a per-CPU hash whose 8-byte key begins with the reason
// (0 forwarded, else the drop reason) and the direction, and whose value
// is a count of packets then of bytes, each 8 bytes, per CPU.
const (
	metricsKeySize   = 8
	metricsValueSize = 16
)

// metricsValue is struct metrics_value.
type metricsValue struct {
	Count, Bytes uint64
}

// dropReader reads the drop reasons, remembering each reason's packets
// at the previous read so that a read says which rose.
type dropReader struct {
	last map[uint8]uint64
}

// read reads dir's metrics map: the reasons with most drops, or why they
// were not read.
func (r *dropReader) read(dir string) ([]model.CiliumDrop, string) {
	path := filepath.Join(dir, metricsMap)
	if _, err := os.Stat(path); err != nil {
		return nil, "drop reasons not read: no " + metricsMap + " pinned"
	}
	m, err := ebpf.LoadPinnedMap(path, &ebpf.LoadPinOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Sprintf("drop reasons not read: open %s: %v", metricsMap, err)
	}
	defer m.Close()
	if m.Type() != ebpf.PerCPUHash || m.KeySize() != metricsKeySize || m.ValueSize() != metricsValueSize {
		return nil, fmt.Sprintf("drop reasons not read: %s is a %s with %d-byte keys and %d-byte values, not the layout of Cilium 1.10 to 1.16 this tablefull reads",
			metricsMap, m.Type(), m.KeySize(), m.ValueSize())
	}
	packets := map[uint8]uint64{}
	key := make([]byte, metricsKeySize)
	var perCPU []metricsValue
	it := m.Iterate()
	for n := uint32(0); n < m.MaxEntries() && it.Next(&key, &perCPU); n++ {
		if key[0] == 0 { // forwarded
			continue
		}
		for _, v := range perCPU {
			packets[key[0]] += v.Count
		}
	}
	if err := it.Err(); err != nil && !errors.Is(err, ebpf.ErrIterationAborted) {
		return nil, fmt.Sprintf("drop reasons not read: walk %s: %v", metricsMap, err)
	}
	out := make([]model.CiliumDrop, 0, len(packets))
	for reason, n := range packets {
		d := model.CiliumDrop{Reason: reason, Name: dropReason(reason), Packets: n}
		if was, ok := r.last[reason]; ok && n > was {
			d.Rose = n - was
		} else if !ok && r.last != nil {
			d.Rose = n // a reason first counted since the previous read
		}
		out = append(out, d)
	}
	r.last = packets
	out, _ = tally.TopN(out, model.MaxCiliumDrops, func(d model.CiliumDrop) uint64 { return d.Packets },
		func(a, b model.CiliumDrop) bool { return a.Reason < b.Reason })
	return out, ""
}

// dropReasons are the names Cilium gives its drop reasons
// (pkg/monitor/api/drop.go) for the ones a table's health touches; the
// rest are named by number.
var dropReasons = map[uint8]string{
	133: "Policy denied",
	134: "Invalid packet",
	135: "CT: Truncated or invalid header",
	137: "CT: Unknown L4 protocol",
	155: "CT: Map insertion failed",
	158: "Service backend not found",
	162: "Reached EDT rate-limiting drop horizon",
	163: "Unknown connection tracking state",
	167: "No mapping for NAT masquerade",
	168: "Unsupported protocol for NAT masquerade",
	169: "FIB lookup failed",
}

// dropReason names reason as Cilium does, "reason N" where tablefull
// does not know its name.
func dropReason(reason uint8) string {
	if n, ok := dropReasons[reason]; ok {
		return n
	}
	return fmt.Sprintf("reason %d", reason)
}
