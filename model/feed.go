package model

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrFeedStopped is what a feed's Next returns once its owner stopped
// it. It is io.EOF too: a feed ends one way for every reader (FeedEnded),
// whether it played out or was stopped.
var ErrFeedStopped = fmt.Errorf("feed stopped: %w", io.EOF)

// FeedEnded reports whether an error of Next ends the feed: a finite
// feed played out, or its owner stopped it. Any other error is reported
// and the reader goes on.
func FeedEnded(err error) bool { return errors.Is(err, io.EOF) }

// Feed is a stream of samples of one table: this host's collector, an
// agent's stream over ssh or from a namespace, a recording, the demo.
// Every reader of samples (the console, the recorder, tune, the
// exporter, the headless lab) reads this one type. What a feed can do
// besides is one of the capabilities below, each declared here only.
type Feed interface {
	// Host describes where the samples come from; a stream knows it once
	// its first sample is in.
	Host() Host
	// Next blocks for the next sample. An error is reported and the
	// reader goes on (a remote feed reports a disconnection this way);
	// one that FeedEnded says ends it.
	Next() (Sample, error)
}

// IntervalSetter is a feed whose sampling interval can change.
type IntervalSetter interface {
	SetInterval(d time.Duration)
}

// CensusSetter is a feed that can take table censuses.
type CensusSetter interface {
	SetCensus(on bool)
}

// Sampler is a feed's sampler as the console and an agent's control
// requests change it.
type Sampler interface {
	IntervalSetter
	CensusSetter
}

// Stopper is a feed that holds resources (a collector, an agent): its
// owner calls Stop when done.
type Stopper interface {
	Stop()
}
