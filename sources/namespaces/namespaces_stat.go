package namespaces

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
)

// dropCounts are a namespace's drop counter and the part of it that
// insert_failed accounts for (beyond chaintoolong, which drops without
// counting drop), summed over CPUs; early_drop is neither (an eviction
// lets the packet in).
// chain is chaintoolong itself: inserts the shared hash refused.
type dropCounts struct{ drop, insert, chain uint64 }

// dropsOf is dropCounts from the three counters' sums.
func dropsOf(drop, insertFailed, chainTooLong uint64) dropCounts {
	return dropCounts{drop: drop, insert: min(model.Increase(chainTooLong, insertFailed), drop), chain: chainTooLong}
}

// parseNSStat reads the entries column (the namespace's count, the same
// in every row) and sums drop, insert_failed and chaintoolong (procfs's
// column "chainlength") over the CPUs.
func parseNSStat(b []byte) (count uint64, drops dropCounts, err error) {
	lines := bytes.Split(b, []byte("\n"))
	header := strings.Fields(string(lines[0]))
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	ent, ok := col["entries"]
	if !ok {
		return 0, dropCounts{}, errors.New("no entries column")
	}
	first := true
	var sums [3]uint64
	for _, l := range lines[1:] {
		fields := bytes.Fields(l)
		if len(fields) != len(header) {
			continue // a row cut by the buffer, or blank
		}
		if first {
			count, _ = strconv.ParseUint(string(fields[ent]), 16, 64)
			first = false
		}
		for k, name := range [...]string{"drop", "insert_failed", "chainlength"} { // procfs's name for chaintoolong
			if i, ok := col[name]; ok {
				v, _ := strconv.ParseUint(string(fields[i]), 16, 64)
				sums[k] += v
			}
		}
	}
	if first {
		return 0, dropCounts{}, errors.New("no rows")
	}
	return count, dropsOf(sums[0], sums[1], sums[2]), nil
}
