package counters

import (
	"bytes"
	"fmt"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// pairFile reads named counters from a /proc/net file of header and
// value line pairs (netstat, snmp: "Tcp: ActiveOpens …" then "Tcp: 12
// …") in place: the header's positions of the keys are kept while the
// header stays the same, and nothing is copied.
type pairFile struct {
	f      *kernelfs.OpenFile
	prefix []byte // "Tcp: "
	keys   []string
	header []byte
	at     []int // each key's field in the header, -1 where the kernel lacks it
}

// newPairFile reads keys of the lines starting with prefix in path.
func newPairFile(path, prefix string, keys ...string) *pairFile {
	return &pairFile{f: kernelfs.NewOpenFile(path, 64<<10), prefix: []byte(prefix), keys: keys}
}

// read sets out[i] to keys[i]'s value; a key the kernel lacks, or a
// negative value (snmp's MaxConn -1), stays 0.
func (p *pairFile) read(out []uint64) error {
	b, err := p.f.Read()
	if err != nil {
		return err
	}
	var header, values []byte
	for line := range bytes.Lines(b) {
		if !bytes.HasPrefix(line, p.prefix) {
			continue
		}
		if header == nil {
			header = line
		} else {
			values = line
			break
		}
	}
	if values == nil {
		return fmt.Errorf("read %s: no %q lines", p.f.Path(), bytes.TrimSpace(p.prefix))
	}
	if !bytes.Equal(header, p.header) {
		p.header, p.at = bytes.Clone(header), p.at[:0]
		names := map[string]int{}
		i := 0
		for f := range fields(header[len(p.prefix):]) {
			names[string(f)] = i
			i++
		}
		for _, k := range p.keys {
			at, ok := names[k]
			if !ok {
				at = -1
			}
			p.at = append(p.at, at)
		}
	}
	clear(out)
	i := 0
	for f := range fields(values[len(p.prefix):]) {
		for k, at := range p.at {
			if at == i {
				out[k] = parseDecimal(f)
			}
		}
		i++
	}
	return nil
}

// parseDecimal is an unsigned decimal number; 0 for a negative one or
// one that is not a number.
func parseDecimal(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0
		}
		v = v*10 + uint64(c-'0')
	}
	return v
}

// close releases the file.
func (p *pairFile) close() { p.f.Close() }
