package exporter

import (
	"runtime/debug"
	"testing"
)

// TestStampedDate: a build from a checkout says the commit's time the
// toolchain stamped; one without a stamp says it does not know.
func TestStampedDate(t *testing.T) {
	for _, c := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "c007dde"}, {Key: "vcs.time", Value: "2026-12-05T14:07:06Z"}}}, "2026-12-05T14:07:06Z"},
		{&debug.BuildInfo{}, "unknown"},
		{nil, "unknown"},
	} {
		if got := stampedDate(c.info); got != c.want {
			t.Errorf("%+v: %q, want %q", c.info, got, c.want)
		}
	}
}
