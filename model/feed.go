package model

import "errors"

// ErrFeedStopped is what a feed's Next returns once its owner stopped
// it: the end of the feed, as io.EOF is of a finite one.
var ErrFeedStopped = errors.New("feed stopped")

// Feed is a stream of samples of one table: this host's collector, an
// agent's stream over ssh or from a namespace, a recording, the demo.
// Every reader of samples (the console, the recorder, tune, the
// exporter, the headless lab) reads this one type. A feed that holds
// resources also has a Stop method, which its owner calls when done.
type Feed interface {
	// Host describes where the samples come from; a stream knows it once
	// its first sample is in.
	Host() Host
	// Next blocks for the next sample. An error is reported and the
	// reader goes on (a remote feed reports a disconnection this way);
	// io.EOF ends a finite feed.
	Next() (Sample, error)
}
