package nldump

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// errAttr reports a damaged netlink attribute.
var errAttr = errors.New("malformed netlink attribute")

// Attrs walks netlink attributes in place: no copies, no allocations, so
// it can read every event of a busy table. Lengths and types are in host
// order, ctnetlink's values in network order.
type Attrs struct {
	b   []byte
	err error
}

// AttrsOf walks the attributes in b.
func AttrsOf(b []byte) Attrs { return Attrs{b: b} }

// Err is why the walk stopped early: a damaged attribute, or nil.
func (a *Attrs) Err() error { return a.err }

// Next returns the next attribute's type (flags masked) and value.
func (a *Attrs) Next() (uint16, []byte, bool) {
	if a.err != nil || len(a.b) == 0 {
		return 0, nil, false
	}
	if len(a.b) < 4 {
		a.err = fmt.Errorf("%w: %d bytes left", errAttr, len(a.b))
		return 0, nil, false
	}
	l := int(binary.NativeEndian.Uint16(a.b))
	typ := binary.NativeEndian.Uint16(a.b[2:]) & 0x3fff // NLA_TYPE_MASK
	if l < 4 || l > len(a.b) {
		a.err = fmt.Errorf("%w: length %d of %d", errAttr, l, len(a.b))
		return 0, nil, false
	}
	v := a.b[4:l]
	a.b = a.b[min(len(a.b), (l+3)&^3):]
	return typ, v, true
}
