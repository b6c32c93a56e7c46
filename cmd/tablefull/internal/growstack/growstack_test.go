package growstack

import (
	"runtime"
	"testing"
)

// TestGrowTakesRoom: grow, run in a fresh goroutine, grows that
// goroutine's stack by its 40 kB frame at least. A frame nothing reads
// is compiled away, and then the stack is never grown.
func TestGrowTakesRoom(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	go func() {
		grow()
		runtime.ReadMemStats(&after) // this goroutine's stack is still grown
		close(done)
	}()
	<-done
	if grew := int64(after.StackInuse) - int64(before.StackInuse); grew < 40<<10 {
		t.Errorf("stacks grew %d kB while grow ran (want ≥ 40 kB)", grew>>10)
	}
}
