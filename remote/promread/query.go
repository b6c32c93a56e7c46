package promread

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	pmodel "github.com/prometheus/common/model"
	"golang.org/x/sys/unix"
)

// queryRange is a range query's window: from Start to End every Step.
type queryRange struct {
	Start, End time.Time
	Step       time.Duration
}

// apiClient sends PromQL to Prometheus's HTTP API (/api/v1/query and
// /api/v1/query_range) and decodes the answer into prometheus/common's
// model values. It is the two calls of client_golang's API client that
// tablefull makes; that client brings json-iterator and its reflection
// registry into every subcommand's start-up.
type apiClient struct {
	base *url.URL
	hc   *http.Client
	// meter counts what the answers cost (nil: not counted).
	meter *meter
}

// meter counts the queries sent, the bytes of the answers read and the
// time the reader spent on them itself (decoding, building rows), apart
// from the time the engine took to answer. Queries may run side by side.
type meter struct {
	queries, bytes, own atomic.Int64
}

// ownStart begins a stretch of the reader's own work (decoding an
// answer, building a page's rows): it keeps the goroutine on its thread,
// so that ownEnd reads that thread's CPU time. CPU time, not wall time:
// on a small host the engine computes on the same CPUs while the console
// decodes, and a wall clock would count its preemptions as the console's.
func (m *meter) ownStart() time.Duration {
	runtime.LockOSThread()
	return threadCPU()
}

// ownEnd counts the thread's CPU time since start as the reader's own.
func (m *meter) ownEnd(start time.Duration) {
	if m != nil {
		m.own.Add(int64(threadCPU() - start))
	}
	runtime.UnlockOSThread()
}

// threadCPU is the CPU time of the calling thread (0 where the clock
// cannot be read: the stretch then counts nothing, not garbage).
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// query runs an instant query at a time.
func (c apiClient) query(ctx context.Context, q string, at time.Time) (pmodel.Value, error) {
	return c.do(ctx, "query", url.Values{"query": {q}, "time": {apiTime(at)}})
}

// queryRange runs a range query.
func (c apiClient) queryRange(ctx context.Context, q string, r queryRange) (pmodel.Value, error) {
	return c.do(ctx, "query_range", url.Values{"query": {q}, "start": {apiTime(r.Start)}, "end": {apiTime(r.End)},
		"step": {strconv.FormatFloat(r.Step.Seconds(), 'f', -1, 64)}})
}

func apiTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixNano())/1e9, 'f', 3, 64)
}

// apiAnswer is the API's envelope.
type apiAnswer struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// do POSTs the form to the endpoint, as Prometheus's own clients do (a
// long selector does not fit a URL), and decodes the result.
func (c apiClient) do(ctx context.Context, endpoint string, form url.Values) (pmodel.Value, error) {
	u := c.base.JoinPath("api", "v1", endpoint)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	limit := answerBound(ctx)
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if c.meter != nil {
		c.meter.bytes.Add(int64(len(body)))
	}
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w: over %d bytes", ErrAnswerTooBig, limit)
	}
	defer c.meter.ownEnd(c.meter.ownStart())
	var a apiAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		if resp.StatusCode/100 != 2 {
			return nil, fmt.Errorf("server returned HTTP status %s", resp.Status)
		}
		return nil, fmt.Errorf("decode the answer: %w", err)
	}
	if a.Status != "success" {
		if a.Error == "" {
			return nil, fmt.Errorf("server returned HTTP status %s", resp.Status)
		}
		return nil, fmt.Errorf("%s: %s", bound(a.ErrorType), bound(a.Error)) // Prometheus's words, bounded; the screen sanitises them
	}
	return decodeResult(a.Data.ResultType, a.Data.Result)
}

// decodeSeries reads a JSON array of series one at a time and refuses it
// at its max+1st: a hostile answer within MaxAnswerBytes is never decoded
// whole into far more series, and memory, than the query can want.
func decodeSeries[T any](raw json.RawMessage, maxSeries int) ([]T, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		if err == nil {
			err = errors.New("not an array")
		}
		return nil, err
	}
	var out []T
	for dec.More() {
		if len(out) == maxSeries {
			return nil, fmt.Errorf("%w: more than %d series", ErrAnswerTooBig, maxSeries)
		}
		var x T
		if err := dec.Decode(&x); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeResult reads a result of its type.
func decodeResult(kind string, raw json.RawMessage) (pmodel.Value, error) {
	switch kind {
	case "vector":
		x, err := decodeSeries[*pmodel.Sample](raw, MaxFleetInstances*MaxSeriesPerInstance)
		if errors.Is(err, ErrAnswerTooBig) {
			return nil, fmt.Errorf("%w, more than %d instances can have: narrow --selector", err, MaxFleetInstances)
		}
		if err != nil {
			return nil, fmt.Errorf("decode a vector: %w", err)
		}
		return pmodel.Vector(x), nil
	case "matrix":
		x, err := decodeSeries[*pmodel.SampleStream](raw, MaxRangeSeries)
		if err != nil {
			return nil, fmt.Errorf("decode a matrix: %w", err)
		}
		return pmodel.Matrix(x), nil
	case "scalar":
		var x pmodel.Scalar
		if err := json.Unmarshal(raw, &x); err != nil {
			return nil, fmt.Errorf("decode a scalar: %w", err)
		}
		return &x, nil
	case "string":
		var x pmodel.String
		if err := json.Unmarshal(raw, &x); err != nil {
			return nil, fmt.Errorf("decode a string: %w", err)
		}
		return &x, nil
	}
	return nil, errors.New("an answer of unknown type " + strconv.Quote(kind))
}
