package counters

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

func TestSockstatTimeWait(t *testing.T) {
	for _, tc := range []struct {
		text      string
		tw, inUse uint64
	}{
		{"sockets: used 9\nTCP: inuse 1 orphan 0 tw 37 alloc 1 mem 0\nUDP: inuse 0 mem 0\n", 37, 1},
		{"sockets: used 9\nTCP: inuse 1 orphan 0 alloc 1 mem 0\n", 0, 1},
		{"sockets: used 9\nUDP: inuse 0 mem 0 tw 5\n", 0, 0},
		{"TCP: tw -3\n", 0, 0},
		{"TCP: inuse 1 tw\n", 0, 1},
		{"TCP: inuse 28000 orphan 0 tw 12 alloc 28001 mem 3\n", 12, 28000},
	} {
		path := filepath.Join(t.TempDir(), "sockstat")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		s := sockstatFile{kernelfs.NewOpenFile(path, 64)}
		tw, inUse, err := s.timeWait()
		s.f.Close()
		if err != nil || tw != tc.tw || inUse != tc.inUse {
			t.Errorf("%q: tw %d, inuse %d (%v), want %d, %d", tc.text, tw, inUse, err, tc.tw, tc.inUse)
		}
	}
}
