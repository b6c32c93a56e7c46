//go:build bench

package stream

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// bigHostLines are n stream lines of a 384-CPU, 24-disk host, counters
// moving.
func bigHostLines(t *testing.T, n int) [][]byte {
	var buf bytes.Buffer
	enc, err := NewEncoder(&buf, model.Host{Name: "big"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		s := twoCPUSample(i)
		s.CPU, s.CTStats.PerCPU, s.Disks = nil, nil, nil
		for c := range 384 {
			v := uint64(i*1000 + c*7)
			s.CTStats.PerCPU = append(s.CTStats.PerCPU, model.CPUCounters{CPU: c, Values: model.CounterValues{v, v / 3, 0, v / 11, 0, v * 13, 1, 0}})
			s.CPU = append(s.CPU, model.CPUTimes{CPU: c, User: float64(v) / 7, System: float64(v) / 9, Idle: float64(v) * 3, SoftIRQ: 1.25})
		}
		for d := range 24 {
			s.Disks = append(s.Disks, model.DiskIO{Name: fmt.Sprintf("nvme%dn1", d), Reads: uint64(i * d), Writes: uint64(i), BusyMillis: uint64(i * 3)})
		}
		enc.Sample(s)
	}
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	return lines[1 : len(lines)-1]
}

// TestRatioDecoder prints what decoding a big host's line costs against
// encoding/json decoding the same lines into the same records (what the
// decoder did before it scanned them), alternating rounds, medians
// (make bench). Goal: ≥ 4× faster.
func TestRatioDecoder(t *testing.T) {
	lines := bigHostLines(t, 200)
	var scanned, reflected []float64
	for range 5 {
		var d lineDecoder
		start := time.Now()
		for _, l := range lines {
			if _, ok := d.scan(l); !ok {
				t.Fatal("the scanner refused a line our encoder wrote")
			}
		}
		scanned = append(scanned, time.Since(start).Seconds())
		start = time.Now()
		for _, l := range lines {
			if _, err := decodeJSON(l); err != nil {
				t.Fatal(err)
			}
		}
		reflected = append(reflected, time.Since(start).Seconds())
	}
	s, r := median(scanned), median(reflected)
	verdict := "goal met"
	if r/s < 4 {
		verdict = "GOAL MISSED"
		t.Errorf("the decoder is %.1f× encoding/json, goal ≥ 4×", r/s)
	}
	fmt.Printf("    decoder on a 384-CPU host's lines (%d KB each): %.0f µs a line, encoding/json %.0f µs: %.1f× faster (goal ≥ 4×, %s)\n",
		len(lines[0])>>10, s/float64(len(lines))*1e6, r/float64(len(lines))*1e6, r/s, verdict)
}

func median(v []float64) float64 {
	c := slices.Clone(v)
	slices.Sort(c)
	return c[len(c)/2]
}
