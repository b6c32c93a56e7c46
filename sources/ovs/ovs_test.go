package ovs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// reply is an ovs_ct_limit GET reply as the kernel builds it: the generic
// netlink header, struct ovs_header, and one attribute holding the zone
// limits' structs back to back (zone_id, limit, count).
func reply(zones ...[3]int64) []byte {
	body := make([]byte, 0, len(zones)*zoneLimitLen)
	for _, z := range zones {
		body = binary.NativeEndian.AppendUint32(body, uint32(int32(z[0])))
		body = binary.NativeEndian.AppendUint32(body, uint32(z[1]))
		body = binary.NativeEndian.AppendUint32(body, uint32(z[2]))
	}
	attr := binary.NativeEndian.AppendUint16(nil, uint16(4+len(body)))
	attr = binary.NativeEndian.AppendUint16(attr, attrZoneLimit)
	attr = append(attr, body...)
	return append([]byte{cmdGet, version, 0, 0, 0, 0, 0, 0}, attr...)
}

func TestParseZoneLimits(t *testing.T) {
	var got model.ZoneLimits
	if err := ParseZoneLimits(reply([3]int64{-1, 1000, 0}, [3]int64{5, 150, 150}, [3]int64{7, 0, 3}, [3]int64{70000, 9, 0}), &got); err != nil {
		t.Fatal(err)
	}
	if want := "{1000 [{5 150} {7 0}]}"; fmt.Sprint(got) != want {
		t.Errorf("limits %v, want %s", got, want)
	}
	if got.Of(5) != 150 || got.Of(9) != 1000 || got.Of(7) != 0 {
		t.Errorf("Of: zone 5 %d, zone 9 %d, zone 7 %d", got.Of(5), got.Of(9), got.Of(7))
	}
	// Every truncation is an error or fewer limits, never a panic.
	full := reply([3]int64{-1, 1000, 0}, [3]int64{5, 150, 150})
	for n := range len(full) {
		var cut model.ZoneLimits
		ParseZoneLimits(full[:n], &cut)
	}
	var many model.ZoneLimits
	zones := make([][3]int64, 200)
	for i := range zones {
		zones[i] = [3]int64{int64(i), 10, 0}
	}
	ParseZoneLimits(reply(zones...), &many)
	if len(many.Zones) != model.MaxZoneLimits {
		t.Errorf("%d zones kept, at most %d", len(many.Zones), model.MaxZoneLimits)
	}
}

// TestReadZoneLimitsHere: on this kernel the limits are read, or not
// present when the openvswitch module is not loaded: never an empty set
// taken for no limits.
func TestReadZoneLimitsHere(t *testing.T) {
	kernelfstest.Need(t, "a namespace")
	l, err := ReadZoneLimits()
	_, statErr := os.Stat("/sys/module/openvswitch")
	switch {
	case statErr != nil && !errors.Is(err, ErrNotPresent):
		t.Errorf("no openvswitch module, yet %+v, %v", l, err)
	case statErr == nil && (err != nil || l == nil):
		t.Errorf("openvswitch loaded, yet %v", err)
	}
}
