package ctnetlink

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/ti-mo/netfilter"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// ctnetlink message and attribute numbers (linux/netfilter/nfnetlink_conntrack.h).
const (
	ctGetStatsCPU = 4 // IPCTNL_MSG_CT_GET_STATS_CPU

	ctaStatsFound         = 2
	ctaStatsInvalid       = 4
	ctaStatsInsert        = 8
	ctaStatsInsertFailed  = 9
	ctaStatsDrop          = 10
	ctaStatsEarlyDrop     = 11
	ctaStatsError         = 12
	ctaStatsSearchRestart = 13
	ctaStatsClashResolve  = 14
	ctaStatsChainTooLong  = 15
)

// netlinkCounters maps CTA_STATS_* attributes onto counters.
// ti-mo/conntrack's Stats() drops clash_resolve and chaintoolong, so the
// stats dump is decoded here.
var netlinkCounters = map[uint16]model.Counter{
	ctaStatsDrop:          model.Drop,
	ctaStatsEarlyDrop:     model.EarlyDrop,
	ctaStatsInsertFailed:  model.InsertFailed,
	ctaStatsInvalid:       model.Invalid,
	ctaStatsError:         model.Error,
	ctaStatsSearchRestart: model.SearchRestart,
	ctaStatsClashResolve:  model.ClashResolve,
	ctaStatsChainTooLong:  model.ChainTooLong,
}

// CTStatNetlink reads the per-CPU conntrack counters over ctnetlink, the
// fallback when /proc/net/stat/nf_conntrack is absent. It needs
// CAP_NET_ADMIN and reads the caller's network namespace.
type CTStatNetlink struct {
	// Timeout bounds one request, so a misbehaving kernel reply cannot
	// hang a sample.
	Timeout time.Duration
}

// Read dumps the per-CPU stats. ErrPermission means no CAP_NET_ADMIN.
func (n CTStatNetlink) Read() (model.CTStats, error) {
	c, err := netfilter.Dial(nil)
	if err != nil {
		return model.CTStats{}, fmt.Errorf("dial ctnetlink: %w", err)
	}
	defer c.Close()
	if n.Timeout > 0 {
		if err := c.SetReadDeadline(time.Now().Add(n.Timeout)); err != nil {
			return model.CTStats{}, fmt.Errorf("set ctnetlink deadline: %w", err)
		}
	}
	req, err := netfilter.MarshalNetlink(netfilter.Header{
		SubsystemID: netfilter.NFSubsysCTNetlink,
		MessageType: netfilter.MessageType(ctGetStatsCPU),
		Family:      netfilter.ProtoUnspec,
		Flags:       netlink.Request | netlink.Dump,
	}, nil)
	if err != nil {
		return model.CTStats{}, fmt.Errorf("marshal stats request: %w", err)
	}
	msgs, err := c.Query(req)
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			return model.CTStats{}, fmt.Errorf("ctnetlink stats: %w", kernelfs.ErrPermission)
		}
		return model.CTStats{}, fmt.Errorf("ctnetlink stats: %w", err)
	}
	return decodeNetlinkStats(msgs)
}

// decodeNetlinkStats turns one message per CPU into CTStats. The CPU
// number travels in the nfgenmsg resource ID.
func decodeNetlinkStats(msgs []netlink.Message) (model.CTStats, error) {
	s := model.CTStats{Source: "ctnetlink"}
	seen := map[model.Counter]bool{}
	for _, m := range msgs {
		h, ad, err := netfilter.DecodeNetlink(m)
		if err != nil {
			return model.CTStats{}, fmt.Errorf("decode stats message: %w", err)
		}
		row := model.CPUCounters{CPU: int(h.ResourceID), Values: model.CounterValues{}}
		for ad.Next() {
			if c, ok := netlinkCounters[ad.Type()]; ok {
				row.Values.Set(c, uint64(ad.Uint32()))
				seen[c] = true
			}
		}
		if err := ad.Err(); err != nil {
			return model.CTStats{}, fmt.Errorf("decode stats attributes: %w", err)
		}
		s.PerCPU = append(s.PerCPU, row)
	}
	for _, c := range model.AllCounters {
		if seen[c] {
			s.Reported = append(s.Reported, c)
		}
	}
	return s, nil
}
