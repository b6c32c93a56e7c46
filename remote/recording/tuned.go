package recording

import (
	"encoding/json"

	"github.com/tablefull/tablefull/model/knob"
)

// The events a recording keeps of a tuning action: the type is the
// action, as the agent's control protocol names it and answers it (its
// ops "apply" and "undo"), the text the knobs' results as JSON, in the
// shape of the agent's reply ({"results":[...]}), so a recorded action
// and an answered one read alike.
const (
	EventApply = "apply"
	EventUndo  = "undo"
)

// tuned is the text of a tuning action's event.
type tuned struct {
	Results []knob.Result `json:"results,omitempty"`
}

// tunedText is the text of a tuning action's event for results.
func tunedText(results []knob.Result) ([]byte, error) {
	return json.Marshal(tuned{results})
}

// ParseTuned reads a tuning action's event text: the knobs' results as
// sent, unchecked (a reader checks them where they land); ok is false for
// a text that is not one.
func ParseTuned(text string) (results []knob.Result, ok bool) {
	var t tuned
	if json.Unmarshal([]byte(text), &t) != nil {
		return nil, false
	}
	return t.Results, true
}
