package counters

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// statColumns maps /proc/net/stat/nf_conntrack header names onto the
// counters conntrack -S prints. Columns are found by name, never by
// position: the set changed in 5.x (searched → clashres, delete_list →
// chainlength) and peers that map by position mislabel them.
var statColumns = map[string]model.Counter{
	"drop":           model.Drop,
	"early_drop":     model.EarlyDrop,
	"insert_failed":  model.InsertFailed,
	"invalid":        model.Invalid,
	"icmp_error":     model.Error,
	"search_restart": model.SearchRestart,
	"clashres":       model.ClashResolve,
	"chainlength":    model.ChainTooLong,
}

// CTStatFile reads the per-CPU conntrack counters from
// /proc/net/stat/nf_conntrack (per network namespace, readable by anyone).
type CTStatFile struct {
	f *kernelfs.OpenFile
}

// NewCTStatFile reads under procRoot (normally /proc).
func NewCTStatFile(procRoot string) *CTStatFile {
	return &CTStatFile{f: kernelfs.NewOpenFile(filepath.Join(procRoot, "net", "stat", "nf_conntrack"), 4096)}
}

// Read returns the per-CPU counters. ErrUnavailable means the file does
// not exist (module absent, or a kernel without NF_CONNTRACK_PROCFS).
func (f *CTStatFile) Read() (model.CTStats, error) {
	b, err := f.f.Read()
	if err != nil {
		return model.CTStats{}, err
	}
	s, err := ParseCTStat(b)
	if err != nil {
		return model.CTStats{}, fmt.Errorf("parse %s: %w", f.f.Path(), err)
	}
	return s, nil
}

// ParseCTStat parses the text of /proc/net/stat/nf_conntrack: a header
// line, then one row of hexadecimal values per possible CPU.
func ParseCTStat(b []byte) (model.CTStats, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() {
		return model.CTStats{}, fmt.Errorf("empty file")
	}
	header := strings.Fields(sc.Text())
	index := map[model.Counter]int{}
	for i, name := range header {
		if c, ok := statColumns[name]; ok {
			index[c] = i
		}
	}
	if len(index) == 0 {
		return model.CTStats{}, fmt.Errorf("no known columns in header %q", sc.Text())
	}
	s := model.CTStats{Source: "procfs"}
	for _, c := range model.AllCounters {
		if _, ok := index[c]; ok {
			s.Reported = append(s.Reported, c)
		}
	}
	for cpu := 0; sc.Scan(); cpu++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != len(header) {
			return model.CTStats{}, fmt.Errorf("cpu row %d has %d columns, header has %d", cpu, len(fields), len(header))
		}
		row := model.CPUCounters{CPU: cpu}
		for c, i := range index {
			v, err := strconv.ParseUint(fields[i], 16, 64)
			if err != nil {
				return model.CTStats{}, fmt.Errorf("cpu row %d column %s: %w", cpu, header[i], err)
			}
			row.Values.Set(c, v)
		}
		s.PerCPU = append(s.PerCPU, row)
	}
	return s, sc.Err()
}

// Close releases the file.
func (f *CTStatFile) Close() { f.f.Close() }
