package counters

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

func TestSockstatTimeWait(t *testing.T) {
	for _, tc := range []struct {
		text string
		tw   uint64
	}{
		{"sockets: used 9\nTCP: inuse 1 orphan 0 tw 37 alloc 1 mem 0\nUDP: inuse 0 mem 0\n", 37},
		{"sockets: used 9\nTCP: inuse 1 orphan 0 alloc 1 mem 0\n", 0},
		{"sockets: used 9\nUDP: inuse 0 mem 0 tw 5\n", 0},
		{"TCP: tw -3\n", 0},
		{"TCP: inuse 1 tw\n", 0},
	} {
		path := filepath.Join(t.TempDir(), "sockstat")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		s := sockstatFile{kernelfs.NewOpenFile(path, 64)}
		tw, err := s.timeWait()
		s.f.Close()
		if err != nil || tw != tc.tw {
			t.Errorf("%q: tw %d (%v), want %d", tc.text, tw, err, tc.tw)
		}
	}
}
