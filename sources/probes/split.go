package probes

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

// refusedTarget is the function whose verdict tells the table's drops
// from a rule's: conntrack's own hook. A variable so that a test can
// name one the kernel lacks.
var refusedTarget = "nf_conntrack_in"

// loadWithoutRefused loads every program but ct_refused: where
// nf_conntrack_in has no BTF (a module built without it), the rest still
// count, and every netfilter drop of a packet without an entry is taken
// for the table's, as before the split.
func loadWithoutRefused(spec *ebpf.CollectionSpec) (probesObjects, error) {
	var o probesObjects
	delete(spec.Programs, probesProgCtRefused)
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		return o, err
	}
	defer coll.Close() // what was not detached below
	if err := coll.Assign(&o.probesMaps); err != nil {
		return o, err
	}
	if err := coll.Assign(&o.probesVariables); err != nil {
		o.probesMaps.Close()
		return o, err
	}
	for name, p := range map[string]**ebpf.Program{probesProgSkbDrop: &o.SkbDrop, probesProgTcpState: &o.TcpState,
		probesProgUdpConnect4: &o.UdpConnect4, probesProgUdpConnect6: &o.UdpConnect6,
		probesProgUdpSendmsg4: &o.UdpSendmsg4, probesProgUdpSendmsg6: &o.UdpSendmsg6} {
		*p = coll.DetachProgram(name)
	}
	return o, nil
}

// splitDrops attaches ct_refused and then tells skb_drop to count only
// the packets conntrack refused as the table's, the rest as dropped
// elsewhere. Without it, it says what is counted instead.
func (w *Programs) splitDrops() error {
	if w.objs.CtRefused == nil {
		return fmt.Errorf("%s is not traceable here", refusedTarget)
	}
	l, err := link.AttachTracing(link.TracingOptions{Program: w.objs.CtRefused})
	if err != nil {
		return fmt.Errorf("trace %s: %w", refusedTarget, classifyBPF(err))
	}
	if err := w.objs.SplitDrops.Set(uint32(1)); err != nil {
		l.Close()
		return fmt.Errorf("split the drops: %w", err)
	}
	w.links = append(w.links, l)
	w.split = true
	return nil
}

// readElsewhere is how many packets without an entry netfilter dropped
// since the last read that conntrack had not refused (summed per CPU).
func (w *Programs) readElsewhere() uint64 {
	var per []uint64
	if w.objs.Elsewhere.Lookup(uint32(0), &per) != nil {
		return 0
	}
	var sum uint64
	for _, v := range per {
		sum += v
	}
	n := sum - w.ruleDrops
	w.ruleDrops = sum
	return n
}
