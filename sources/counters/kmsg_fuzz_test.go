package counters

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// FuzzKmsgRecord: any kernel log record parses without panicking, and a
// line is kept only for a "table full" message.
func FuzzKmsgRecord(f *testing.F) {
	f.Add("4,1234,5678901,-;nf_conntrack: nf_conntrack: table full, dropping packet")
	f.Add("4,1235,5678902,-;nf_conntrack: nf_conntrack: table full in netns 4026532177, dropping packet")
	f.Add("4,1236,5678903,-;net_ratelimit: 17 callbacks suppressed")
	f.Add(";")
	f.Fuzz(func(t *testing.T, line string) {
		k := &Kmsg{netnsDir: t.TempDir(), fd: -1, Monotonic: func() time.Duration { return time.Hour }}
		var out model.KernelLog
		k.parseRecord(time.Unix(1e9, 0), []byte(line), &out)
		for _, l := range out.Lines {
			if !strings.Contains(l.Text, "table full") {
				t.Fatalf("kept %q", l.Text)
			}
		}
	})
}
