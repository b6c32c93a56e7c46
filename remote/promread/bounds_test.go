package promread

import (
	"github.com/tablefull/tablefull/model/fleet"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// endless is an answer that starts like a vector and never ends: 1.5 GB
// and more, unless the reader stops. It fills any buffer, however small.
type endless struct{ sent int64 }

const endlessHead = `{"status":"success","data":{"resultType":"vector","result":[`
const endlessRow = `{"metric":{"__name__":"tablefull_conntrack_entries","instance":"h:9874"},"value":[1,"1"]},`

func (e *endless) Read(p []byte) (int, error) {
	if e.sent > 1536<<20 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) {
		var src string
		var off int64
		if e.sent < int64(len(endlessHead)) {
			src, off = endlessHead, e.sent
		} else {
			src, off = endlessRow, (e.sent-int64(len(endlessHead)))%int64(len(endlessRow))
		}
		k := copy(p[n:], src[off:])
		n += k
		e.sent += int64(k)
	}
	return n, nil
}

func peakHeap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapSys
}

// TestHugeAnswerRefused: a 1.5 GB answer is refused at MaxAnswerBytes
// with a clear error, fast, in bounded memory.
func TestHugeAnswerRefused(t *testing.T) {
	skipMemoryUnderRace(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.Copy(w, &endless{})
	}))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	start, before := time.Now(), peakHeap()
	_, err := r.Fleet(context.Background(), time.Now(), fleet.View{})
	if !errors.Is(err, ErrAnswerTooBig) && (err == nil || !strings.Contains(err.Error(), "over tablefull's bounds")) {
		t.Fatalf("a 1.5 GB answer: %v, want it refused as too big", err)
	}
	grown := int64(peakHeap()) - int64(before) // the heap may even give some back
	t.Logf("refused in %s, heap grew %d MiB: %v", time.Since(start).Round(time.Millisecond), grown>>20, err)
	if grown > 256<<20 {
		t.Errorf("the heap grew %d MiB reading a refused answer", grown>>20)
	}
}

// vectorOf answers every query with n instances' entries, each valued v.
func vectorOf(n int, v string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteString(`{"status":"success","data":{"resultType":"vector","result":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"metric":{"__name__":"tablefull_conntrack_entries","instance":"h%d:9874"},"value":[1,"%s"]}`, i, v)
		}
		b.WriteString(`]}}`)
		io.WriteString(w, b.String())
	})
}

// TestAHundredThousandRanked: a fleet of 100,000 instances is not
// refused: the engine counts and ranks them, and the console reads the
// totals and one page, its rows no more than the page's.
func TestAHundredThousandRanked(t *testing.T) {
	ranked := make([]string, 100000)
	for i := range ranked {
		ranked[i] = fmt.Sprintf("h%d:9874", i)
	}
	srv := httptest.NewServer(fakeEngine(t, len(ranked), ranked, vectorOf(60, "1")))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	page, err := r.Fleet(context.Background(), time.Now(), fleet.View{Offset: 20, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if page.Totals.Hosts != 100000 || len(page.Rows) != 20 || page.Rows[0].Instance != "h20:9874" || !page.Rows[0].HasTable {
		t.Fatalf("totals %+v, %d rows, first %+v", page.Totals, len(page.Rows), page.Rows[0])
	}
	if page.Cost.Queries != FleetQueries+RecordedProbe || page.Cost.Bytes == 0 { // the first refresh looks for recordings first
		t.Errorf("cost %+v, want %d queries and their bytes", page.Cost, FleetQueries+RecordedProbe)
	}
}

// TestRankingBeyondTopkRefused: an engine that answers a ranking with
// more instances than topk asked for is refused, not read.
func TestRankingBeyondTopkRefused(t *testing.T) {
	ranked := []string{"a:1", "b:1", "c:1"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		q := r.Form.Get("query")
		r.Form.Set("query", strings.Replace(q, "sort_desc(topk(1,", "sort_desc(topk(3,", 1)) // topk ignored
		fakeEngine(t, 3, ranked, vectorOf(3, "1")).ServeHTTP(w, r)
	}))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	if page, err := r.Fleet(context.Background(), time.Now(), fleet.View{Limit: 1}); !errors.Is(err, ErrAnswerTooBig) {
		t.Errorf("a ranking of 3 for topk(1): %d rows, %v; want refused", len(page.Rows), err)
	}
}

// TestPageBeyondTheBoundRefused: a page past the first MaxFleetInstances
// of the ranking is refused and said so.
func TestPageBeyondTheBoundRefused(t *testing.T) {
	srv := httptest.NewServer(fakeEngine(t, 10, nil, vectorOf(1, "1")))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	if _, err := r.Fleet(context.Background(), time.Now(), fleet.View{Offset: MaxFleetInstances, Limit: 10}); !errors.Is(err, ErrAnswerTooBig) || !strings.Contains(err.Error(), "narrow") {
		t.Errorf("a page past the bound: %v", err)
	}
}

// TestOutOfRangeValuesUnknown: 1e308, NaN, +Inf and a negative count
// read as unknown (no table), never as a garbled number.
func TestOutOfRangeValuesUnknown(t *testing.T) {
	for _, v := range []string{"1e308", "NaN", "+Inf", "-5"} {
		srv := httptest.NewServer(fakeEngine(t, 1, []string{"h0:9874"}, vectorOf(1, v)))
		r, _ := New(Config{URL: srv.URL})
		page, err := r.Fleet(context.Background(), time.Now(), fleet.View{})
		rows := page.Rows
		srv.Close()
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s: %v %+v", v, err, rows)
		}
		if rows[0].HasTable || rows[0].Count != 0 {
			t.Errorf("value %s read as a count: %+v", v, rows[0])
		}
	}
}

// TestRangeAnswerBounded: a drill-down answered with 300,000 points for
// a range of 60 steps keeps the 60 asked for and says it left the rest.
func TestRangeAnswerBounded(t *testing.T) {
	end := time.Unix(1_700_000_000, 0)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.FormValue("start") == "" { // the scrape-interval probe
			io.WriteString(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
			return
		}
		var b strings.Builder
		b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"tablefull_conntrack_entries","instance":"h:9874"},"values":[`)
		for i := range 300000 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `[%d.%03d,"5"]`, end.Unix()-60+int64(i/1000), i%1000) // a thousand points a second
		}
		b.WriteString(`]}]}}`)
		io.WriteString(w, b.String())
	}))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	_, samples, err := r.History(context.Background(), "h:9874", end, time.Minute, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) > 61 {
		t.Errorf("%d samples from a 60-step range", len(samples))
	}
	if len(samples) == 0 || !strings.Contains(strings.Join(samples[0].Notes, " "), "did not ask for") {
		t.Errorf("the cut is not said: %d samples, notes %v", len(samples), samples)
	}
}

// TestHostileVectorRefusedWhileDecoding: an answer of far more series
// than a fleet can have, within MaxAnswerBytes, is refused as it is
// decoded: the series past the bound are never made, so the memory it
// takes stays near the answer's own size, not several times it.
func TestHostileVectorRefusedWhileDecoding(t *testing.T) {
	skipMemoryUnderRace(t)
	var b strings.Builder
	b.WriteString(`[`)
	for i := range 300000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metric":{"i":"%d"},"value":[1,"1"]}`, i)
	}
	b.WriteString(`]`)
	raw := json.RawMessage(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := decodeResult("vector", raw)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrAnswerTooBig) {
		t.Fatalf("300,000 series: %v, want refused", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 12*uint64(len(raw)) {
		t.Errorf("decoding a refused answer of %d bytes allocated %d: its series were made first", len(raw), grew)
	}
}

// skipMemoryUnderRace skips a test of the memory a refusal costs under
// the race detector, whose instrumentation changes what is allocated;
// go test without -race (make test) holds the bound.
func skipMemoryUnderRace(t *testing.T) {
	if raceBuild {
		t.Skip("-race: the memory bound is the production build's (race_on_test.go)")
	}
}

// TestCountsBoundedApart: the totals' counts are read to
// MaxCountAnswerBytes, far under a page's bound: an answer of a few
// hundred KB, which a page's details may be, is refused for a count.
func TestCountsBoundedApart(t *testing.T) {
	big := strings.Repeat(" ", 4*MaxCountAnswerBytes)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[]}}%s`, big)
	}))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	_, err := r.Fleet(context.Background(), time.Now(), fleet.View{})
	if !errors.Is(err, ErrAnswerTooBig) || !strings.Contains(err.Error(), fmt.Sprint(MaxCountAnswerBytes)) {
		t.Errorf("a count's answer of %d bytes: %v, want it refused at %d", len(big), err, MaxCountAnswerBytes)
	}
	if v, err := r.instant(context.Background(), new(meter), "up", time.Now()); err != nil || len(v) != 0 {
		t.Errorf("the same answer to a query of series: %v, %v; want it read", v, err)
	}
}
