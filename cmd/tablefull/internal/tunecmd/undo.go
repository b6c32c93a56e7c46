package tunecmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/lab"
	"github.com/tablefull/tablefull/sources/tune"
)

// undoAll is --undo: t.UndoAlso's repair on this host first, then the
// undo record of the host (or the namespace); nothing to undo in the
// record is no failure when the repair put something back.
func undoAll(t CommandOptions, tgt tuning.Tuner, lt *tune.Local, w io.Writer) error {
	note, also := "", error(nil)
	if t.UndoAlso != nil && t.NetnsPath == "" && t.Target == nil {
		note, also = t.UndoAlso()
	}
	switch {
	case errors.Is(also, lab.ErrRunning):
		fmt.Fprintln(w, "lab: a lab is running: it restores the host when it ends")
		also = nil
	case note != "":
		fmt.Fprintln(w, note)
	}
	err := undoTuning(tgt, lt, w)
	if note != "" && errors.Is(err, tune.ErrNothingToUndo) {
		err = nil
	}
	return errors.Join(err, also)
}
