package owners

import (
	"net/netip"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestCountPorts: sockets whose local port is a listener's, or outside
// the range, are inbound and take no port; the others are counted by
// source and destination, TIME_WAIT ones too, busiest first; IPv4-mapped
// addresses are the IPv4 ones.
func TestCountPorts(t *testing.T) {
	ap := netip.MustParseAddrPort
	listeners := []SocketRow{{State: tcpListen, Local: ap("0.0.0.0:40001")}}
	rows := []SocketRow{
		{State: 1, Local: ap("10.0.0.2:40001"), Remote: ap("10.0.0.7:51000")}, // accepted on a listener's port in the range
		{State: 1, Local: ap("10.0.0.2:80"), Remote: ap("10.0.0.8:40500")},    // accepted, port outside the range
		{State: 2, Local: ap("10.0.0.2:40002"), Remote: ap("10.9.9.9:443")},
		{State: 1, Local: ap("[::ffff:10.0.0.2]:40003"), Remote: ap("[::ffff:10.9.9.9]:443")},
		{State: tcpTimeWait, Local: ap("10.0.0.2:40004"), Remote: ap("10.9.9.9:443")},
		{State: 1, Local: ap("10.0.0.2:40005"), Remote: ap("10.0.0.5:80")},
	}
	dump := func(states uint32, each func(SocketRow)) error {
		src := rows
		if states == 1<<tcpListen {
			src = listeners
		}
		for _, r := range src {
			each(r)
		}
		return nil
	}
	u, err := CountPorts(dump, [2]uint64{40000, 40999})
	if err != nil {
		t.Fatal(err)
	}
	want := model.DestPorts{Src: "10.0.0.2", Dst: "10.9.9.9:443", Ports: 3, TimeWait: 1}
	if u.Inbound != 2 || u.Outbound != 4 || len(u.Dests) != 2 || u.Dests[0] != want {
		t.Errorf("got %+v, want 2 inbound, 4 outbound, first %+v", u, want)
	}
}
