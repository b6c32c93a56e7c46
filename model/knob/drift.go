package knob

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model/safe"
)

// ConntrackBuild is how nf_conntrack is in the running kernel, which
// decides what applies a persisted value at boot.
type ConntrackBuild string

// The builds. A module's sysctls exist only once it is loaded (often late,
// by the first ct rule), and its hashsize is a modprobe option; a built-in
// one has its sysctls from the start and never reads modprobe.d.
const (
	BuildUnknown   ConntrackBuild = ""
	BuildModule    ConntrackBuild = "module"
	BuildNotLoaded ConntrackBuild = "module, not loaded"
	BuildBuiltin   ConntrackBuild = "built-in"
)

// IsModule reports whether a persist must survive a late module load:
// a module, loaded or not, or a kernel not known to have it built in.
func (b ConntrackBuild) IsModule() bool { return b != BuildBuiltin }

// Drift is a knob tablefull persisted whose live value differs: the
// persisted value did not apply at boot, or something wrote it since.
type Drift struct {
	Knob      string `json:"knob"`
	Persisted string `json:"persisted"`
	Live      string `json:"live"`
	// Writers are what is known to write the knob after tablefull's file
	// (a later sysctl.d file, kube-proxy at its start). Foreign text.
	Writers []string `json:"writers,omitempty"`
}

// Drifts are the drift check of a sample: the knobs tablefull persisted
// (Checked, drifted or not) and those whose live value differs. A nil
// *Drifts is a check not made; a knob whose live value could not be read
// is neither checked nor drifted.
type Drifts struct {
	Checked []string `json:"checked,omitempty"`
	Drifted []Drift  `json:"drifted,omitempty"`
}

// DriftOf compares the values tablefull persisted with the live ones.
// Values compare as their words (a port range "32768 60999" equals
// "32768\t60999"); a knob with no live value is left out, unknown.
func DriftOf(persisted, live map[string]string) Drifts {
	var d Drifts
	keys := make([]string, 0, len(persisted))
	for k := range persisted {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		l, ok := live[k]
		if !ok {
			continue
		}
		d.Checked = append(d.Checked, k)
		p := persisted[k]
		if !sameValue(k, p, l) {
			d.Drifted = append(d.Drifted, Drift{Knob: k, Persisted: p, Live: l})
		}
	}
	return d
}

// Say is the drift in an operator's words: "persisted nf_conntrack_max
// 32768, live 4096 — the persisted value did not apply (reboot? module
// loaded late? another writer?)", naming a known later writer.
func (d Drift) Say() string {
	s := fmt.Sprintf("persisted %s %s, live %s — the persisted value did not apply (reboot? module loaded late? another writer?)",
		Name(d.Knob), safe.Text(d.Persisted, 32), safe.Text(d.Live, 32))
	if len(d.Writers) > 0 {
		var w []string
		for _, x := range d.Writers {
			w = append(w, safe.Text(x, 120))
		}
		s += "; written after it by " + strings.Join(w, ", ")
	}
	return s
}

// hashsizeRound is what the kernel rounds a hashsize up to: a page of
// bucket heads (4096 B ÷ 8 B).
const hashsizeRound = 512

// sameValue reports whether a persisted value is what the kernel holds:
// the same words, or for the hashsize the kernel's rounding of it.
func sameValue(key, persisted, live string) bool {
	if strings.Join(strings.Fields(persisted), " ") == strings.Join(strings.Fields(live), " ") {
		return true
	}
	if key != Hashsize {
		return false
	}
	p, err1 := strconv.ParseUint(strings.TrimSpace(persisted), 10, 64)
	l, err2 := strconv.ParseUint(strings.TrimSpace(live), 10, 64)
	return err1 == nil && err2 == nil && (p+hashsizeRound-1)/hashsizeRound*hashsizeRound == l
}
