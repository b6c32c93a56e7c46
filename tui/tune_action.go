package tui

// tuneAction is what the tuning panel does once the operator confirms
// it: each is one method of tuning.Tuner.
type tuneAction string

// The tuning panel's actions.
const (
	actApply   tuneAction = "apply"
	actPersist tuneAction = "persist"
	actUndo    tuneAction = "undo"
)
