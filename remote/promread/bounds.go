package promread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	pmodel "github.com/prometheus/common/model"
)

// MaxAnswerBytes bounds one Prometheus answer as read, before it is
// decoded: a fleet refresh's answers are a page's, a few tens of KB, a
// drill-down's range query a few MB.
const MaxAnswerBytes = 32 << 20

// MaxCountAnswerBytes bounds the answer of a query that counts (the
// fleet's totals: a few series each), so that the totals sent side by
// side with the ranking hold no more memory than one answer.
const MaxCountAnswerBytes = 64 << 10

// answerBoundKey carries a query's own bound on its answer, under
// MaxAnswerBytes, in its context.
type answerBoundKey struct{}

// withAnswerBound bounds the answers of the queries sent with ctx to
// max bytes.
func withAnswerBound(ctx context.Context, max int64) context.Context {
	return context.WithValue(ctx, answerBoundKey{}, max)
}

// answerBound is the bound ctx sets, or MaxAnswerBytes.
func answerBound(ctx context.Context) int64 {
	if n, ok := ctx.Value(answerBoundKey{}).(int64); ok && n < MaxAnswerBytes {
		return n
	}
	return MaxAnswerBytes
}

// MaxFleetInstances bounds how deep into the engine's ranking the fleet
// view pages; MaxSeriesPerInstance bounds the series an answer may have
// a host (an answer beyond both is refused while it is decoded).
const (
	MaxFleetInstances    = 5000
	MaxSeriesPerInstance = 32
)

// MaxRangeSeries bounds the series of one range query (a 384-CPU host's
// per-CPU counters are about 3,000).
const MaxRangeSeries = 8192

// ErrAnswerTooBig reports an answer over the bounds.
var ErrAnswerTooBig = errors.New("the answer is over tablefull's bounds")

// boundedTransport reads every answer through MaxAnswerBytes.
type boundedTransport struct {
	rt  http.RoundTripper
	max int64
}

// RoundTrip implements http.RoundTripper.
func (t boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.max {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %d bytes announced, at most %d read", ErrAnswerTooBig, resp.ContentLength, t.max)
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.max}
	return resp, nil
}

// cappedBody fails a read past its bound instead of reading on.
type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("%w: over %d bytes", ErrAnswerTooBig, MaxAnswerBytes)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more than allowed tells a long answer from a full one
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, fmt.Errorf("%w: over %d bytes", ErrAnswerTooBig, MaxAnswerBytes)
	}
	return n, err
}

// checkVector refuses a fleet query's answer with more series than the
// fleet's instance limit allows.
func checkVector(v pmodel.Vector) error {
	if len(v) > MaxFleetInstances*MaxSeriesPerInstance {
		return fmt.Errorf("%w: %d series, more than %d instances can have: narrow --selector", ErrAnswerTooBig, len(v), MaxFleetInstances)
	}
	return nil
}

// boundMatrix keeps of a range answer what the request asked for: at
// most MaxRangeSeries series, each with one point per step of the range
// (a point's time snapped to its step, the first of a step kept), with
// values in range (every series a drill-down asks for is a count, a rate
// or a time). However an answer is made, a drill-down then has no more
// timestamps than its range has steps. It returns how many points it
// left out.
func boundMatrix(m pmodel.Matrix, rng queryRange) (pmodel.Matrix, int, error) {
	if len(m) > MaxRangeSeries {
		return nil, 0, fmt.Errorf("%w: %d series in one range answer, at most %d", ErrAnswerTooBig, len(m), MaxRangeSeries)
	}
	start, end := pmodel.TimeFromUnixNano(rng.Start.UnixNano()), pmodel.TimeFromUnixNano(rng.End.UnixNano())
	step := max(int64(rng.Step/time.Millisecond), 1)
	cut := 0
	for _, ss := range m {
		kept := ss.Values[:0]
		last := start - pmodel.Time(step)
		for _, p := range ss.Values {
			slot := start + pmodel.Time((int64(p.Timestamp-start)+step/2)/step*step)
			if slot < start || slot > end+pmodel.Time(step/2) || slot <= last || !known(p.Value) {
				cut++
				continue
			}
			p.Timestamp = slot
			kept, last = append(kept, p), slot
		}
		ss.Values = kept
	}
	return m, cut, nil
}

// known reports whether a value Prometheus answered can stand for a
// count, a rate or a time: finite, not negative, and within what a
// float64 holds exactly (2^53). Beyond, it is unknown, never a garbled
// number.
func known(v pmodel.SampleValue) bool {
	f := float64(v)
	return !math.IsNaN(f) && !math.IsInf(f, 0) && f >= 0 && f <= 1<<53
}
