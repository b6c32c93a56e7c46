package ipvs

import (
	"fmt"
	"testing"
	"time"
)

// TestReadIPVS: on a fixture of what the kernel lists, the table's size,
// its services and their real servers' connections summed, the busiest
// services first, conn_reuse_mode, and its first connections with their
// addresses read from hex; where ip_vs is not loaded, "not present".
func TestReadIPVS(t *testing.T) {
	v := Read("testdata/proc")
	if !v.Present || v.Size != 4096 || v.Services != 3 || v.Conns != 19 || v.ReuseMode != "1" || v.Note != "" {
		t.Errorf("read %+v", v)
	}
	if got := fmt.Sprint(v.Top); got != "[{UDP 10.96.0.10:53 9} {TCP 10.96.0.1:443 8} {TCP [fd00::1]:80 2}]" {
		t.Errorf("top %s", got)
	}
	if len(v.Rows) != 3 || fmt.Sprint(v.Rows[0]) != "{TCP 10.0.1.5:40000 10.96.0.1:443 10.244.1.7:6443 ESTABLISHED 899}" {
		t.Errorf("rows %+v", v.Rows)
	}
	if got := Read(t.TempDir()); got.Present || got.Text("6.1") != "not present (ip_vs not loaded)" {
		t.Errorf("no ip_vs: %+v", got)
	}
	r := NewReader("testdata/proc")
	now := time.Now()
	first := r.Read(now)
	if r.Read(now.Add(time.Second)) != first || r.Read(now.Add(ReadEvery)) == first {
		t.Error("read again within ReadEvery, or not after it")
	}
	if addrPort("zz:01") != "zz:01" || addrPort("0A000001:zz") != "0A000001:zz" {
		t.Error("a malformed address read as one")
	}
}
