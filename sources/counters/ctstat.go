package counters

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"

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
	p ctStatParser
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
	s, err := f.p.parse(b)
	if err != nil {
		return model.CTStats{}, fmt.Errorf("parse %s: %w", f.f.Path(), err)
	}
	return s, nil
}

// ctStatParser parses the text of /proc/net/stat/nf_conntrack (a header
// line, then one row of hexadecimal values per possible CPU) in place: no line or field is copied, and
// the header's columns are mapped once and kept while the header stays
// the same (it changes only with the kernel). A read of a 384-CPU host's
// file is one allocation, its rows.
type ctStatParser struct {
	header []byte
	// cols is the counter of each column (-1: one not counted); reported
	// the counters the header has, in AllCounters' order.
	cols     []int
	reported []model.Counter
}

// setHeader maps the header's columns onto the counters.
func (p *ctStatParser) setHeader(line []byte) error {
	p.header, p.cols, p.reported = nil, p.cols[:0], nil
	var has [model.NumCounters]bool
	for f := range fields(line) {
		i := -1
		if c, ok := statColumns[string(f)]; ok {
			i = slices.Index(model.AllCounters[:], c)
			has[i] = true
		}
		p.cols = append(p.cols, i)
	}
	for i, c := range model.AllCounters {
		if has[i] {
			p.reported = append(p.reported, c)
		}
	}
	if len(p.reported) == 0 {
		return fmt.Errorf("no known columns in header %q", line)
	}
	p.header = slices.Clone(line)
	return nil
}

// parse reads the header (mapped again only when it changed) and a row
// per CPU.
func (p *ctStatParser) parse(b []byte) (model.CTStats, error) {
	line, rest := cutLine(b)
	if len(bytes.TrimSpace(line)) == 0 {
		return model.CTStats{}, fmt.Errorf("empty file")
	}
	if !bytes.Equal(line, p.header) {
		if err := p.setHeader(line); err != nil {
			return model.CTStats{}, err
		}
	}
	s := model.CTStats{Source: "procfs", Reported: p.reported[:len(p.reported):len(p.reported)]}
	s.PerCPU = make([]model.CPUCounters, 0, bytes.Count(rest, []byte{'\n'})+1)
	for cpu := 0; len(rest) > 0; cpu++ {
		line, rest = cutLine(rest)
		row := model.CPUCounters{CPU: cpu}
		n := 0
		for f := range fields(line) {
			if n < len(p.cols) && p.cols[n] >= 0 {
				v, ok := parseHex(f)
				if !ok {
					return model.CTStats{}, fmt.Errorf("cpu row %d column %s: not a hexadecimal number: %q", cpu, model.AllCounters[p.cols[n]], f)
				}
				row.Values[p.cols[n]] = v
			}
			n++
		}
		switch {
		case n == 0:
			continue
		case n != len(p.cols):
			return model.CTStats{}, fmt.Errorf("cpu row %d has %d columns, header has %d", cpu, n, len(p.cols))
		}
		s.PerCPU = append(s.PerCPU, row)
	}
	return s, nil
}

// cutLine is b's first line and what follows it.
func cutLine(b []byte) (line, rest []byte) {
	line, rest, _ = bytes.Cut(b, []byte{'\n'})
	return line, rest
}

// fields yields the fields of line, separated by white space, in place.
func fields(line []byte) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(line) > 0 {
			i := 0
			for i < len(line) && isSpace(line[i]) {
				i++
			}
			line = line[i:]
			j := 0
			for j < len(line) && !isSpace(line[j]) {
				j++
			}
			if j > 0 && !yield(line[:j]) {
				return
			}
			line = line[j:]
		}
	}
}

// isSpace reports whether c separates fields.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// parseHex parses an unsigned hexadecimal number of at most 16 digits.
func parseHex(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uint64(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | uint64(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// Close releases the file.
func (f *CTStatFile) Close() { f.f.Close() }
