package nic

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// FuzzEthtoolCountGrows: whatever count a driver said first and however
// its count changes before the strings and stats calls, the reader never
// reads or writes past its buffers, and a count past them is an error.
func FuzzEthtoolCountGrows(f *testing.F) {
	f.Add(uint32(10), uint32(12), uint32(11))
	f.Add(uint32(1), uint32(4096), uint32(4096))
	f.Add(uint32(4), uint32(5000), uint32(3))
	f.Fuzz(func(t *testing.T, first, atNames, atValues uint32) {
		var b ethtoolBuffers
		// call writes as the kernel does: its own count, and that many
		// entries, into the buffer it was given (never past it here: the
		// fake kernel stops at the end where the real one would not).
		call := func(buf []byte) error {
			switch binary.NativeEndian.Uint32(buf) {
			case unix.ETHTOOL_GSTRINGS:
				binary.NativeEndian.PutUint32(buf[8:], atNames)
				for i := 0; i < int(atNames) && 12+(i+1)*ethStringLen <= len(buf); i++ {
					copy(buf[12+i*ethStringLen:], "stat")
				}
			case unix.ETHTOOL_GSTATS:
				binary.NativeEndian.PutUint32(buf[4:], atValues)
			}
			return nil
		}
		stats, err := b.read(first, call)
		switch {
		case first == 0 || first > maxStats:
			if stats != nil || err != nil {
				t.Errorf("count %d: %v %v, want nothing read", first, stats, err)
			}
		case atNames > maxStats || atValues > maxStats:
			if err == nil {
				t.Errorf("counts %d/%d past the buffers: no error", atNames, atValues)
			}
		case err != nil:
			t.Errorf("counts %d/%d: %v", atNames, atValues, err)
		}
		if len(b.names) > 0 && (len(b.names) < 12+maxStats*ethStringLen || len(b.values) < 8+maxStats*8) {
			t.Errorf("buffers of %d and %d bytes: not sized for %d", len(b.names), len(b.values), maxStats)
		}
	})
}
