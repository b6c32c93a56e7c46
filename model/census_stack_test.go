package model

import (
	"runtime"
	"testing"
)

// TestCensusCounterStaysOffTheStack: a counter made, fed and counted in a
// fresh goroutine leaves that goroutine's stack small. A literal of the
// counter, or a range over one of its port arrays by value, puts 256–512 kB
// of it on the stack (and in `tablefull census`'s peak RSS, twice over:
// the stack and the copy).
func TestCensusCounterStaysOffTheStack(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan Census)
	go func() {
		c := NewCensusCounter(ClassCounts{ClassTCPOpen: 432000})
		c.Add(Flow{Proto: 6, TCPState: 3, DstPort: 443, Timeout: 100})
		c.Add(Flow{Proto: 17, DstPort: 53, Timeout: 20})
		out := c.Census(CensusTop)
		runtime.ReadMemStats(&after) // this goroutine's stack is still grown
		done <- out
	}()
	if got := <-done; got.Total != 2 || len(got.TopPorts) != 2 {
		t.Fatalf("census %d entries, ports %v", got.Total, got.TopPorts)
	}
	if grew := int64(after.StackInuse) - int64(before.StackInuse); grew > 64<<10 {
		t.Errorf("stacks grew %d kB while a census was counted (want ≤ 64 kB)", grew>>10)
	}
}
