package counters

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tablefull/tablefull/model/knob"
)

// ReadConntrackBuild tells, under the sysfs root, whether nf_conntrack is
// a module or built in. /sys/module/nf_conntrack exists for a built-in
// one from boot (it has parameters: hashsize), and for a module once
// loaded, when it alone has an initstate. Absent, it is a module not yet
// loaded (the first ct rule or NAT autoloads it).
func ReadConntrackBuild(sysRoot string) knob.ConntrackBuild {
	dir := filepath.Join(sysRoot, "module", "nf_conntrack")
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return knob.BuildNotLoaded
	} else if err != nil {
		return knob.BuildUnknown
	}
	if _, err := os.Stat(filepath.Join(dir, "initstate")); err == nil {
		return knob.BuildModule
	} else if errors.Is(err, fs.ErrNotExist) {
		return knob.BuildBuiltin
	}
	return knob.BuildUnknown
}
