package entry

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/safe"
)

// isLabelName reports whether s is a label's name as connlabel.conf
// writes one: 1–64 letters, digits, '-', '_' or '.'.
func isLabelName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// ErrLabelsUnread is a filter by label whose names were not looked up in
// the host's connlabel.conf: it matches nothing until they are.
var ErrLabelsUnread = errors.New("the filter's labels were not looked up in connlabel.conf")

// WithLabelBits is f with its -l names read as bits by bitOf, the host's
// connlabel.conf (a name to its bit, 0–127); a name it lacks is refused
// as conntrack(8) refuses it.
func (f Filter) WithLabelBits(bitOf map[string]uint) (Filter, error) {
	f.labelBits = make([]uint, 0, len(f.Labels))
	for _, name := range f.Labels {
		bit, ok := bitOf[name]
		if !ok || bit > 127 {
			return f, fmt.Errorf("%w: --label %s: not a label of connlabel.conf", ErrBadFilter, safe.Text(name, 64))
		}
		f.labelBits = append(f.labelBits, bit)
	}
	return f, nil
}

// labelsReady reports whether f's labels, if any, were read as bits.
func (f Filter) labelsReady() bool { return len(f.Labels) == 0 || f.labelBits != nil }

// labelsMatch reports whether e has every label bit f asks for.
func (f Filter) labelsMatch(e model.Flow) bool {
	if !f.labelsReady() {
		return false
	}
	for _, b := range f.labelBits {
		if e.Labels[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

// ParseConnlabel reads connlabel.conf as libnetfilter_conntrack does: a
// label a line, its bit (0–127) then its name; '#' starts a comment, and
// a line that is not a label is skipped. The first name given a bit, and
// the first bit given a name, stand.
func ParseConnlabel(text string) map[string]uint {
	bits := map[string]uint{}
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) < 2 || !isLabelName(f[1]) {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 8)
		if _, taken := bits[f[1]]; err != nil || n > 127 || taken {
			continue
		}
		bits[f[1]] = uint(n)
	}
	return bits
}
