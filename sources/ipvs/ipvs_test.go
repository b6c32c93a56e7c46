package ipvs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
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

// TestRowsOfABusyTable: a connection table far longer than the head read
// still shows its first rows, none of them cut at the head's end.
func TestRowsOfABusyTable(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/proc")); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("Pro FromIP   FPrt ToIP     TPrt DestIP   DPrt State       Expires PEName PEData\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "TCP 0A000105 %04X 0A600001 01BB 0AF40107 192B ESTABLISHED %d\n", 1000+i, 800+i%100)
	}
	if err := os.WriteFile(filepath.Join(dir, "net", "ip_vs_conn"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	v := Read(dir)
	if len(v.Rows) != model.MaxIPVSRows || v.Rows[0].From != "10.0.1.5:1000" {
		t.Fatalf("%d rows of a %d-byte table: %+v", len(v.Rows), b.Len(), v.Rows)
	}
	if got := rows([]byte("header\nTCP 0A000105 03E8 0A600001 01BB 0AF40107 192B ESTABLISHED 899\nTCP 0A000105 03E9 0A600001 01BB 0AF40107 192B ESTABLISHED 8")); len(got) != 1 {
		t.Errorf("a row cut at the head's end was read: %+v", got)
	}
}
