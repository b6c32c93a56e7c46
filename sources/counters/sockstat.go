package counters

import (
	"bytes"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// sockstatFile reads the TCP TIME_WAIT count from /proc/net/sockstat
// ("TCP: inuse 1 orphan 0 tw 3 alloc 1 mem 0"), kept open and re-read in
// place like the other files a sample reads every interval.
type sockstatFile struct{ f *kernelfs.OpenFile }

// timeWait is the "tw" of the TCP line, 0 when the kernel gives none.
func (s sockstatFile) timeWait() (uint64, error) {
	b, err := s.f.Read()
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(b) {
		rest, ok := bytes.CutPrefix(line, []byte("TCP: "))
		if !ok {
			continue
		}
		name := true
		var key []byte
		for f := range fields(rest) {
			if name {
				key = f
			} else if string(key) == "tw" {
				return parseDecimal(f), nil
			}
			name = !name
		}
	}
	return 0, nil
}
