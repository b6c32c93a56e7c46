package incident

import (
	"slices"
	"time"

	"github.com/tablefull/tablefull/model/verdict"
)

// HeldSet is verdicts that held at once, most severe first, and for how
// long in all: the frames each held in add up to the recording, where
// each kind's own time (Incident.Held) overlaps the others'.
type HeldSet struct {
	Kinds []verdict.Kind
	For   time.Duration
}

// MaxHeldSets bounds the sets an incident keeps; frames of sets past it
// are counted in the last one kept's place as OtherHeld.
const MaxHeldSets = 16

// holdTogether folds one frame's kinds, held for held, into the sets.
func (in *Incident) holdTogether(kinds []verdict.Kind, held time.Duration) {
	if len(kinds) == 0 || held <= 0 {
		return
	}
	slices.SortFunc(kinds, func(a, b verdict.Kind) int {
		switch {
		case worse(a, b):
			return -1
		case worse(b, a):
			return 1
		}
		return 0
	})
	for i := range in.Together {
		if slices.Equal(in.Together[i].Kinds, kinds) {
			in.Together[i].For += held
			return
		}
	}
	if len(in.Together) == MaxHeldSets {
		in.OtherHeld += held
		return
	}
	in.Together = append(in.Together, HeldSet{Kinds: kinds, For: held})
}

// HeldSets are the sets of verdicts that held at once, longest first.
func (in *Incident) HeldSets() []HeldSet {
	out := slices.Clone(in.Together)
	slices.SortStableFunc(out, func(a, b HeldSet) int { return int(b.For - a.For) })
	return out
}
