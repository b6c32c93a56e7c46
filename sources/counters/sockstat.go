package counters

import (
	"bytes"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// sockstatFile reads the TCP TIME_WAIT and in-use counts from /proc/net/sockstat
// ("TCP: inuse 1 orphan 0 tw 3 alloc 1 mem 0"), kept open and re-read in
// place like the other files a sample reads every interval.
type sockstatFile struct{ f *kernelfs.OpenFile }

// timeWait is the "tw" of the TCP line and inUse its "inuse" (every TCP
// socket but TIME_WAIT: listeners, SYN_SENT and open ones), 0 when the
// kernel gives none.
func (s sockstatFile) timeWait() (tw, inUse uint64, err error) {
	b, err := s.f.Read()
	if err != nil {
		return 0, 0, err
	}
	for line := range bytes.Lines(b) {
		rest, ok := bytes.CutPrefix(line, []byte("TCP: "))
		if !ok {
			continue
		}
		name := true
		var key []byte
		for f := range fields(rest) {
			switch {
			case name:
				key = f
			case string(key) == "tw":
				tw = parseDecimal(f)
			case string(key) == "inuse":
				inUse = parseDecimal(f)
			}
			name = !name
		}
		return tw, inUse, nil
	}
	return 0, 0, nil
}
