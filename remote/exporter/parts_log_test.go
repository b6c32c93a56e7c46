package exporter

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	tf "github.com/tablefull/tablefull/model"
)

// TestUpSaysWhyInTheLog: a part whose read failed reads 0 and the log
// says which and why, once, and when it is back; a part off by design
// (entries far from the cap) is neither 0 nor logged; a feed's failure,
// its text sanitised, is the stream's.
func TestUpSaysWhyInTheLog(t *testing.T) {
	var log bytes.Buffer
	e := New("test")
	e.Log = &log
	s := sample(0, 10, 10, 0)
	s.Entries = tf.Entries{Note: tf.EntriesFarFromCap}
	e.Observe(s)
	s = sample(1, 10, 10, 0)
	s.Kernel = tf.KernelLog{Note: "/dev/kmsg: permission denied (needs CAP_SYSLOG)"}
	s.Entries = tf.Entries{Note: tf.EntriesFarFromCap}
	e.Observe(s)
	e.Observe(s)
	back := sample(3, 10, 10, 0)
	back.Entries = tf.Entries{Note: tf.EntriesFarFromCap}
	e.Observe(back)
	e.Fail(errors.New("agent gone: \x1b]0;title\x07"))
	e.Observe(back)
	got := log.String()
	if strings.Count(got, `tablefull_up{part="kernel_log"} is 0: /dev/kmsg: permission denied (needs CAP_SYSLOG)`) != 1 ||
		!strings.Contains(got, `tablefull_up{part="kernel_log"} is 1 again`) || strings.Contains(got, "entries") ||
		!strings.Contains(got, `tablefull_up{part="stream"} is 0: agent gone`) || strings.Contains(got, "\x1b") ||
		!strings.Contains(got, `tablefull_up{part="stream"} is 1 again`) {
		t.Errorf("the log says:\n%s", got)
	}
}
