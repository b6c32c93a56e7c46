package tunecmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
)

// errNoFeed reports a tune command wired without a feed of the table.
var errNoFeed = errors.New("tune: no feed of the table to measure")

// feedOf is t's feed: this host's collector, or a namespace's agent. A
// stream knows its host once its first sample is in: ask the feed's Host
// after reading.
func feedOf(t CommandOptions) (model.Feed, error) {
	if t.Feed == nil {
		return nil, errNoFeed
	}
	return t.Feed()
}

// stopFeed stops feed when it holds resources (a collector, an agent).
func stopFeed(feed model.Feed) {
	if s, ok := feed.(model.Stopper); ok {
		s.Stop()
	}
}

// observe feeds an the samples of feed for d and returns the last frame.
// A feed that gives no sample at all in that time is an error that says
// why (a namespace's agent that cannot start, a stream that is not ours).
func observe(feed model.Feed, an *diagnose.Analyzer, d time.Duration) (diagnose.Frame, error) {
	var last diagnose.Frame
	var lastErr error
	got := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		s, err := feed.Next()
		if model.FeedEnded(err) {
			break
		}
		if err != nil {
			lastErr = err
			continue
		}
		last = an.Add(s)
		got++
	}
	if got == 0 {
		if lastErr == nil {
			lastErr = errors.New("the feed ended")
		}
		return last, fmt.Errorf("no sample of the table in %s: %w", d, lastErr)
	}
	return last, nil
}

// sampleTries is how often oneSample asks its feed.
const sampleTries = 3

// oneSample is the feed's next sample, asked up to sampleTries times: a
// read that fails once (a busy netlink socket) is not the table's
// answer, as observe does not take it for one either.
func oneSample(feed model.Feed) (model.Sample, error) {
	var err error
	for range sampleTries {
		var s model.Sample
		if s, err = feed.Next(); err == nil || model.FeedEnded(err) {
			return s, err
		}
	}
	return model.Sample{}, err
}

// measuredName is what tune says it measures.
func measuredName(t CommandOptions) string {
	if t.NetnsPath != "" {
		return "network namespace " + t.NetnsPath
	}
	return "this host"
}
