package clitest

import (
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/ti-mo/conntrack"
)

// KnownMix is 150 established and 70 TIME_WAIT TCP entries to one server
// port and 30 UDP entries to a resolver.
func KnownMix() []conntrack.Flow {
	var flows []conntrack.Flow
	srv := netip.MustParseAddr("10.5.5.14")
	tcp := func(i int, state uint8) conntrack.Flow {
		f := conntrack.NewFlow(6, conntrack.StatusConfirmed|conntrack.StatusAssured, netip.AddrFrom4([4]byte{10, 5, 5, byte(15 + i%3)}),
			srv, uint16(40000+i), 3900, 120, 0)
		f.ProtoInfo.TCP = &conntrack.ProtoInfoTCP{State: state}
		return f
	}
	for i := range 150 {
		flows = append(flows, tcp(i, 3))
	}
	for i := range 70 {
		flows = append(flows, tcp(1000+i, 7))
	}
	for i := range 30 {
		flows = append(flows, conntrack.NewFlow(17, conntrack.StatusConfirmed, srv, netip.MustParseAddr("10.0.0.53"), uint16(50000+i), 53, 30, 0))
	}
	return flows
}

// NextSample is the next sample f gives, within 15 s; errors are logged
// and read past.
func NextSample(t *testing.T, f interface{ Next() (model.Sample, error) }) model.Sample {
	t.Helper()
	c := make(chan model.Sample, 1)
	go func() {
		for {
			s, err := f.Next()
			if err == nil {
				c <- s
				return
			}
			if errors.Is(err, io.EOF) {
				return
			}
			t.Logf("feed: %v", err)
		}
	}()
	select {
	case s := <-c:
		return s
	case <-time.After(15 * time.Second):
		t.Fatal("no sample within 15 s")
		return model.Sample{}
	}
}
