package model

import (
	"errors"
	"fmt"
)

// ErrForeignFlow is a flow from outside (an agent's answer, a recording)
// that no kernel makes: refused where it lands.
var ErrForeignFlow = errors.New("not a flow the kernel makes")

// CheckForeign is the one check of a flow that arrives from outside: its
// addresses are IPv4 or IPv6 without a zone (netip takes any bytes after
// a "%", and a zone is drawn as text), and its TCP state is one conntrack
// has. Entries the kernel lists never carry a zone.
func (f Flow) CheckForeign() error {
	for _, a := range [...]struct {
		name string
		zone string
	}{{"source", f.Src.Zone()}, {"destination", f.Dst.Zone()}, {"reply source", f.ReplySrc.Zone()}, {"reply destination", f.ReplyDst.Zone()}} {
		if a.zone != "" {
			return fmt.Errorf("%w: its %s address has a zone", ErrForeignFlow, a.name)
		}
	}
	if f.TCPState < -1 || f.TCPState >= len(TCPStates) {
		return fmt.Errorf("%w: TCP state %d", ErrForeignFlow, f.TCPState)
	}
	return nil
}
