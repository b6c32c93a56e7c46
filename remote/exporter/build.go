package exporter

import (
	"fmt"

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
		date = "unknown"
	}
	return fmt.Sprintf("tablefull %s (revision %s, built %s, %s, %s/%s)", BuildVersion(), version.GetRevision(), date, version.GoVersion, version.GoOS, version.GoArch)
}

// BuildVersion is the version built, "dev" when the build set none.
func BuildVersion() string {
	if version.Version == "" {
		return "dev"
	}
	return version.Version
}
