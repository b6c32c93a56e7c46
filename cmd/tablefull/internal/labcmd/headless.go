package labcmd

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/story"
	"github.com/tablefull/tablefull/sources/lab"
)

// headlessEvidence bounds a headless line's evidence: a log line is
// read whole, not fitted to a screen, so a verdict's last clause (what
// frees the table) is not cut where a screen would cut it.
const headlessEvidence = 4 * safe.MaxText

// Headless prints one line per sample of the lab l's feed, judged by the console's
// analyzer, with the captions, until stopped; fixAfter that long (0:
// never) it raises nf_conntrack_max to lab.FixMax (the write-up's fix, for
// recordings).
func Headless(l *lab.Lab, feed model.Feed, stopped <-chan struct{}, fixAfter time.Duration, w io.Writer) (err error) {
	fix := make(chan uint64, 1)
	wait := l.FixAfter(fixAfter, func(was uint64) { fix <- was })
	defer func() { err = errors.Join(err, wait()) }()
	samples := make(chan model.Sample)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			s, err := feed.Next()
			if model.FeedEnded(err) {
				return // stopped
			}
			if err != nil {
				fmt.Fprintln(w, "feed:", err)
				continue
			}
			select {
			case samples <- s:
			case <-done:
				return
			}
		}
	}()
	an := diagnose.NewAnalyzer(3600)
	var prev diagnose.Frame
	for {
		select {
		case <-stopped:
			return nil
		case was := <-fix:
			if was < lab.FixMax {
				fmt.Fprintf(w, "fix: nf_conntrack_max raised to %d\n", lab.FixMax)
			} else {
				fmt.Fprintf(w, "fix: nf_conntrack_max is %d already, not lowered to %d\n", was, lab.FixMax)
			}
		case s := <-samples:
			f := an.Add(s)
			c := f.Sample.Conntrack
			fmt.Fprintf(w, "%s count=%d peak=%d max=%d pinned=%v verdict=%q drops=%d early_drops=%d syn_retrans=%.1f listen_overflows=%.1f cpu=%.0f | %s | %s\n",
				s.Time.Format("15:04:05.000"), c.Count, c.Peak, c.Max, f.Pinned, f.Verdict().Kind,
				f.Rates.Drops(), f.Rates.CTTotal.Get(model.EarlyDrop), f.Rates.SynRetransPS, f.Rates.ListenOverflowsPS, f.Rates.CPUAll.Busy(),
				l.Clients.String(), safe.Text(f.Verdict().Text(), headlessEvidence))
			if cap := story.Caption(prev, f); cap != "" {
				fmt.Fprintln(w, "  ▶", cap)
			}
			prev = f
		}
	}
}
