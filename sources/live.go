package sources

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablefull/tablefull/model"
)

// Live samples the local host every interval in the background and hands
// the samples out in order through Next. It is the console's local feed.
type Live struct {
	c        *Collector
	interval atomic.Int64
	out      chan model.Sample
	stop     chan struct{}
	wake     chan struct{}
	once     sync.Once
	done     chan struct{}
	census   censusRunner
}

// NewLive starts sampling c every interval; the first sample is taken at
// once.
func NewLive(c *Collector, interval time.Duration) *Live {
	l := &Live{c: c, out: make(chan model.Sample, 16), stop: make(chan struct{}),
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	l.interval.Store(int64(interval))
	l.census.dump = func() (model.Census, error) { return CensusDump{Timeout: time.Minute}.Run(10) }
	c.StartPeak()
	go l.run()
	return l
}

// Host describes the local host.
func (l *Live) Host() model.Host { return l.c.Host() }

// SetInterval changes the sampling interval from the next sample on.
func (l *Live) SetInterval(d time.Duration) {
	l.interval.Store(int64(d))
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// SetCensus turns periodic table censuses on or off (see CensusEvery).
// Each finished census rides on the next sample.
func (l *Live) SetCensus(on bool) { l.census.set(on) }

// Next blocks until the next sample; after Stop it returns ErrStopped.
func (l *Live) Next() (model.Sample, error) {
	s, ok := <-l.out
	if !ok {
		return model.Sample{}, ErrStopped
	}
	return s, nil
}

// Stop ends sampling and releases the collector.
func (l *Live) Stop() {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.c.Close()
	})
}

func (l *Live) run() {
	defer close(l.done)
	defer close(l.out)
	last := time.Now()
	l.emit(last, time.Duration(l.interval.Load()))
	for {
		d := time.Duration(l.interval.Load())
		next := last.Add(d)
		t := time.NewTimer(time.Until(next))
		select {
		case <-l.stop:
			t.Stop()
			return
		case <-l.wake:
			t.Stop()
			continue
		case now := <-t.C:
			l.emit(now, now.Sub(last))
			last = now
		}
	}
}

// emit sends a sample, dropping the oldest queued one if the reader is
// slow, so memory stays bounded and the newest data is never lost.
func (l *Live) emit(now time.Time, interval time.Duration) {
	s := l.c.Sample(now, interval)
	s.Census = l.census.poll(now)
	for {
		select {
		case l.out <- s:
			return
		case <-l.stop:
			return
		default:
			select {
			case <-l.out:
			default:
			}
		}
	}
}
