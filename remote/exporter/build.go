package exporter

import (
	"fmt"
	"runtime/debug"

	"github.com/prometheus/common/version"
)

// VersionText is what --version and tablefull version print of the build
// tablefull_build_info describes: the version, the commit it was built
// from and when that commit was made (the build's date, reproducibly),
// the Go version and the platform, as a bug report needs them. The build sets them as it does Prometheus's
// exporters': -ldflags "-X github.com/prometheus/common/version.Version=…"
// (and .Revision, .BuildDate); the revision is otherwise the one the Go
// toolchain stamped.
func VersionText() string {
	date := version.BuildDate
	if date == "" {
		info, _ := debug.ReadBuildInfo()
		date = stampedDate(info)
	}
	return fmt.Sprintf("tablefull %s (revision %s, built %s, %s, %s/%s)", BuildVersion(), version.GetRevision(), date, version.GoVersion, version.GoOS, version.GoArch)
}

// stampedDate is the commit's time the Go toolchain stamped on a build
// from a checkout (go install ./cmd/tablefull, go build), "unknown" where
// it stamped none (-buildvcs=false, a build outside a checkout).
func stampedDate(info *debug.BuildInfo) string {
	if info != nil {
		for _, s := range info.Settings {
			if s.Key == "vcs.time" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// BuildVersion is the version built, "dev" when the build set none.
func BuildVersion() string {
	if version.Version == "" {
		return "dev"
	}
	return version.Version
}
