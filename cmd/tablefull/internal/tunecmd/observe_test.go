package tunecmd

import (
	"errors"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// flakyFeed fails its first fails reads, then gives a sample.
type flakyFeed struct{ fails, calls int }

func (*flakyFeed) Host() model.Host { return model.Host{Name: "h"} }
func (f *flakyFeed) Next() (model.Sample, error) {
	f.calls++
	if f.calls <= f.fails {
		return model.Sample{}, errors.New("netlink: device or resource busy")
	}
	return model.Sample{Conntrack: model.Conntrack{Count: 42}}, nil
}

// TestOneSampleOutlastsAFailedRead: --set measures the table from one
// sample; a read that fails once is asked again, one that keeps failing
// says why.
func TestOneSampleOutlastsAFailedRead(t *testing.T) {
	s, err := oneSample(&flakyFeed{fails: 1})
	if err != nil || s.Conntrack.Count != 42 {
		t.Errorf("after one failed read: %+v, %v; want the sample", s.Conntrack, err)
	}
	f := &flakyFeed{fails: 100}
	if _, err := oneSample(f); err == nil || f.calls != sampleTries {
		t.Errorf("a feed that keeps failing: %v after %d reads, want its error after %d", err, f.calls, sampleTries)
	}
}
