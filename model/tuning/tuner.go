package tuning

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
)

// Tuner is the one way every surface tunes a table: the console's panel,
// tablefull tune, the lab and the agent's control requests. Its
// implementations are this host, a namespace of it tuned from the host,
// the lab, and a host over the stream.
type Tuner interface {
	// Read returns the knobs and what a plan needs to know of where they
	// can be written.
	Read() (KnobState, error)
	// Apply writes changes and reads them back; count guards max. Every
	// write is recorded for Undo, or nothing is written.
	Apply(changes []Change, count uint64) ([]knob.Result, error)
	// Persist writes the boot-time files; it returns them and warnings.
	Persist(changes []Change) (files, warnings []string, err error)
	// Undo restores the values before the first apply since the last undo.
	Undo() ([]knob.Result, error)
}

// KnobState is what a tuner reads: the values, the bytes per entry, where the
// global knobs can be written from, who else writes them, and the last
// step applied.
type KnobState struct {
	// Current holds the value of each knob that could be read.
	Current map[string]string `json:"current,omitempty"`
	// EntryBytes is the slab size of one entry (0: unknown).
	EntryBytes uint64 `json:"entry_bytes,omitempty"`
	// Global reports whether this tuner writes the global knobs
	// (nf_conntrack_max, hashsize): not from inside a child namespace.
	Global bool `json:"global,omitempty"`
	// Note says where this tuner writes, or what it cannot do.
	Note string `json:"note,omitempty"`
	// Owners names, by knob, a manager (kube-proxy) that rewrites it.
	Owners map[string]string `json:"owners,omitempty"`
	// LastStep is the last apply of nf_conntrack_max recorded for undo
	// (nil: none since the last undo).
	LastStep *Step `json:"last_step,omitempty"`
}

// ErrLinkCut reports that the link to the host was cut after a change
// was asked and before the host answered: whether it was made is known
// only once the knobs are read again (CutOutcome).
var ErrLinkCut = errors.New("the link was cut before the host answered")

// CutOutcome says what an apply whose answer was cut off did, from the
// knobs read once the link is back: every change holds (and its undo
// record was kept before it), or none does; held is how many hold.
func CutOutcome(changes []Change, k KnobState) (say string, held int) {
	for _, c := range changes {
		if k.Current[c.Key] == c.Proposed {
			held++
		}
	}
	switch held {
	case len(changes):
		return fmt.Sprintf("the link was cut during the apply: back now, all %d changes hold (u undoes them)", held), held
	case 0:
		return "the link was cut during the apply: back now, nothing was changed", held
	}
	return fmt.Sprintf("the link was cut during the apply: back now, %d of %d changes hold (u undoes them)", held, len(changes)), held
}

// Step is one apply of nf_conntrack_max as the undo record keeps it: when,
// from what, to what, and the count then. A one-shot plan reads it to
// size the next step on what the count did since.
type Step struct {
	At    time.Time `json:"at"`
	From  uint64    `json:"from"`
	To    uint64    `json:"to"`
	Count uint64    `json:"count"`
}

// StepOf is the step that changes records, when they raise or lower
// nf_conntrack_max from before (nil otherwise).
func StepOf(at time.Time, before map[string]string, changes []Change, count uint64) *Step {
	for _, c := range changes {
		if c.Key != knob.Max {
			continue
		}
		from, err1 := strconv.ParseUint(before[knob.Max], 10, 64)
		to, err2 := strconv.ParseUint(c.Proposed, 10, 64)
		if err1 != nil || err2 != nil || from == to {
			return nil
		}
		return &Step{At: at, From: from, To: to, Count: count}
	}
	return nil
}

// Limits of the text a remote tuner may send (KnobState.Check).
const (
	maxKnobNote  = 512
	maxOwnerNote = 256
)

// Check validates knobs that arrive from outside the process (an agent's
// reply): unknown keys are dropped, values parsed and re-rendered, texts
// bounded and sanitised, a step with an impossible cap dropped.
func (k KnobState) Check() KnobState {
	out := KnobState{EntryBytes: min(k.EntryBytes, 1<<20), Global: k.Global, Note: safe.Text(k.Note, maxKnobNote), Current: map[string]string{}}
	for _, spec := range Knobs {
		if v, ok := k.Current[spec.Key]; ok {
			if norm, err := ParseValue(spec.Key, v); err == nil {
				out.Current[spec.Key] = norm
			}
		}
		if o, ok := k.Owners[spec.Key]; ok {
			if out.Owners == nil {
				out.Owners = map[string]string{}
			}
			out.Owners[spec.Key] = safe.Text(o, maxOwnerNote)
		}
	}
	if s := k.LastStep; s != nil && s.From > 0 && s.To > 0 && s.To <= 1<<31 && s.From <= 1<<31 {
		step := *s
		out.LastStep = &step
	}
	return out
}

// HostCommand is the command, run on the host, that applies the global
// changes a tuner inside a child namespace cannot write: the knobs are
// global, so the host's own tune writes them (and its --undo restores
// them).
func HostCommand(changes []Change) string {
	if len(changes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("tablefull tune")
	for _, c := range changes {
		if strings.Contains(c.Proposed, " ") {
			fmt.Fprintf(&b, " --set '%s=%s'", c.Key, c.Proposed)
			continue
		}
		fmt.Fprintf(&b, " --set %s=%s", c.Key, c.Proposed)
	}
	b.WriteString(" --yes")
	return b.String()
}
