package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tablefull/tablefull/model"
)

// A sample's rows are JSON arrays of a fixed shape. Each row type reads
// exactly its shape: a short or long row is an error, and a hostile row
// costs no more to decode than a valid one.
type (
	cpuRow   [9]int64                      // cpu, user, nice, system, idle, iowait, irq, softirq, steal
	statsRow [1 + model.NumCounters]uint64 // cpu, then AllCounters
	tcpRow   [10]uint64                    // see doc.go
	// diskRow is [name, reads, writes, busy_ms].
	diskRow struct {
		name                string
		reads, writes, busy uint64
	}
	// klogRow is [unix ms, text, netns, netns name].
	klogRow struct {
		at    int64
		text  string
		netns uint64
		name  string
	}
	// countRow is [key, n]: one entry of a top list.
	countRow struct {
		key string
		n   int
	}
)

// MarshalJSON implements json.Marshaler.
func (r countRow) MarshalJSON() ([]byte, error) { return json.Marshal([]any{r.key, r.n}) }

// UnmarshalJSON implements json.Unmarshaler.
func (r *countRow) UnmarshalJSON(b []byte) error { return unmarshalTuple(b, &r.key, &r.n) }

// UnmarshalJSON implements json.Unmarshaler.
func (r *cpuRow) UnmarshalJSON(b []byte) error { return parseRow(b, r[:], strconv.ParseInt) }

// UnmarshalJSON implements json.Unmarshaler.
func (r *statsRow) UnmarshalJSON(b []byte) error { return parseRow(b, r[:], strconv.ParseUint) }

// UnmarshalJSON implements json.Unmarshaler.
func (r *tcpRow) UnmarshalJSON(b []byte) error { return parseRow(b, r[:], strconv.ParseUint) }

// parseRow reads a JSON array of exactly len(dst) integers. encoding/json
// has checked b is valid JSON, so a row of numbers is "[n,n,…]" with
// optional spaces.
func parseRow[T int64 | uint64](b []byte, dst []T, parse func(string, int, int) (T, error)) error {
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return fmt.Errorf("row is not an array")
	}
	if n := bytes.Count(b, []byte(",")) + 1; n != len(dst) {
		return fmt.Errorf("row has %d values, want %d", n, len(dst))
	}
	b = b[1 : len(b)-1]
	for i := range dst {
		field := b
		if j := bytes.IndexByte(b, ','); j >= 0 {
			field, b = b[:j], b[j+1:]
		}
		v, err := parse(string(bytes.TrimSpace(field)), 10, 64)
		if err != nil {
			return fmt.Errorf("row value %d: %w", i, err)
		}
		dst[i] = v
	}
	return nil
}

// MarshalJSON implements json.Marshaler.
func (r diskRow) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{r.name, r.reads, r.writes, r.busy})
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *diskRow) UnmarshalJSON(b []byte) error {
	return unmarshalTuple(b, &r.name, &r.reads, &r.writes, &r.busy)
}

// MarshalJSON implements json.Marshaler.
func (r klogRow) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{r.at, r.text, r.netns, r.name})
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *klogRow) UnmarshalJSON(b []byte) error {
	return unmarshalTuple(b, &r.at, &r.text, &r.netns, &r.name)
}

// unmarshalTuple reads a JSON array of exactly len(dst) values, each into
// its own typed destination. Extra elements make it an error without
// being decoded.
func unmarshalTuple(b []byte, dst ...any) error {
	var raw [5]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw[len(dst)] != nil {
		return fmt.Errorf("row has more than %d values", len(dst))
	}
	for i, d := range dst {
		if raw[i] == nil {
			return fmt.Errorf("row has %d values, want %d", i, len(dst))
		}
		if err := json.Unmarshal(raw[i], d); err != nil {
			return fmt.Errorf("row value %d: %w", i, err)
		}
	}
	return nil
}
