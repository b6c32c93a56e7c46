package counters

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
)

func TestParseCTStat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
		check   func(t *testing.T, s model.CTStats)
	}{
		{name: "modern header, columns found by name",
			in: "entries clashres found new invalid ignore delete chainlength insert insert_failed drop early_drop icmp_error expect_new expect_create expect_delete search_restart\n" +
				"00000010 00000001 0 0 00000002 0 0 00000003 0 00000004 00001731 0000004d 00000005 0 0 0 0004583e\n",
			check: func(t *testing.T, s model.CTStats) {
				want := map[model.Counter]uint64{model.ClashResolve: 1, model.Invalid: 2, model.ChainTooLong: 3,
					model.InsertFailed: 4, model.Drop: 5937, model.EarlyDrop: 77, model.Error: 5, model.SearchRestart: 284734}
				for c, v := range want {
					if got := s.PerCPU[0].Values.Get(c); got != v {
						t.Errorf("%s = %d, want %d", c, got, v)
					}
				}
				if len(s.Reported) != 8 {
					t.Errorf("reported %v, want all 8", s.Reported)
				}
			}},
		{name: "columns in another order",
			in: "drop entries early_drop\n0000000a 00000001 00000002\n00000001 00000001 00000000\n",
			check: func(t *testing.T, s model.CTStats) {
				if s.Total(model.Drop) != 11 || s.Total(model.EarlyDrop) != 2 || len(s.PerCPU) != 2 {
					t.Errorf("got %+v", s)
				}
				if s.Reports(model.Invalid) {
					t.Errorf("reports invalid, which the header lacks")
				}
			}},
		{name: "empty", in: "", wantErr: "empty"},
		{name: "no known columns", in: "foo bar\n1 2\n", wantErr: "no known columns"},
		{name: "short row", in: "entries drop\n00000001\n", wantErr: "has 1 columns"},
		{name: "not hex", in: "entries drop\n00000001 zz\n", wantErr: "column drop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := new(ctStatParser).parse([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s)
		})
	}
}

// FuzzParseCTStat: any input gives stats or an error, never a panic, and
// every row has exactly the reported counters.
func FuzzParseCTStat(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "testdata", "hosts", "*", "proc", "net", "stat", "nf_conntrack"))
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("entries drop\n1 2\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := new(ctStatParser).parse(b)
		if err != nil {
			return
		}
		for _, row := range s.PerCPU {
			for _, c := range model.AllCounters {
				if row.Values.Get(c) != 0 && !s.Reports(c) {
					t.Fatalf("row has %s = %d, which the header does not report", c, row.Values.Get(c))
				}
			}
		}
	})
}

// TestCTStatHeaderKept: the parser keeps the header's columns between
// reads and maps them again when the header changes (another kernel's
// file under the same path, as a test's fixtures are).
func TestCTStatHeaderKept(t *testing.T) {
	var p ctStatParser
	a, err := p.parse([]byte("entries drop early_drop\n00000001 0000000a 00000002\n"))
	if err != nil || a.Total(model.Drop) != 10 || a.Total(model.EarlyDrop) != 2 {
		t.Fatalf("first read %+v, %v", a, err)
	}
	b, err := p.parse([]byte("early_drop entries invalid\n00000003 00000001 00000004\n"))
	if err != nil || b.Total(model.EarlyDrop) != 3 || b.Total(model.Invalid) != 4 || b.Reports(model.Drop) {
		t.Fatalf("after the header changed %+v, %v", b, err)
	}
	if a.Reports(model.Invalid) {
		t.Errorf("the first read's reported counters changed under it: %v", a.Reported)
	}
}
