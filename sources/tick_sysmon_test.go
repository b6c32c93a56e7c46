package sources

import (
	"runtime"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// TestPaceLetsSysmonSleep: 200 ticks of the timerfd pace switch this
// process's threads far less than 200 of a Go ticker's: Go's monitor
// thread sleeps until the next Go timer, so each tick of a Go ticker wakes
// it too (and it then sleeps in 20 µs steps), while the timerfd, read with
// raw system calls, wakes only the thread that takes the tick (one P,
// as the agent and the exporter run).
func TestPaceLetsSysmonSleep(t *testing.T) {
	const ticks, period = 200, 2 * time.Millisecond
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // as the agent and the exporter run
	count := func(p pace) int {
		time.Sleep(20 * time.Millisecond) // let the monitor settle into its long sleep
		before := kernelfstest.VoluntarySwitches(t, "self")
		for range ticks {
			<-p.C()
		}
		n := kernelfstest.VoluntarySwitches(t, "self") - before
		p.Stop()
		return n
	}
	fd := count(newPace(period))
	goTicker := count(goPace{time.NewTicker(period)})
	t.Logf("context switches over %d ticks: timerfd %d, Go ticker %d", ticks, fd, goTicker)
	if fd*3 > goTicker*2 {
		t.Errorf("the timerfd's ticks switched threads %d times, a Go ticker's %d: want a third fewer at least", fd, goTicker)
	}
}
