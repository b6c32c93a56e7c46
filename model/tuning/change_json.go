package tuning

import (
	"encoding/json"

	"github.com/tablefull/tablefull/model/verdict"
)

// changeJSON is a change as JSON carries it: its reason's words and
// facts beside the knob.
type changeJSON struct {
	Key      string         `json:"key"`
	Current  string         `json:"current"`
	Proposed string         `json:"proposed"`
	Why      string         `json:"why"`
	WhyFacts []verdict.Fact `json:"why_facts"`
}

// MarshalJSON writes {key, current, proposed, why, why_facts}.
func (c Change) MarshalJSON() ([]byte, error) {
	facts := c.Why.Facts
	if facts == nil {
		facts = []verdict.Fact{}
	}
	return json.Marshal(changeJSON{Key: c.Key, Current: c.Current, Proposed: c.Proposed, Why: c.Why.Text(), WhyFacts: facts})
}

// UnmarshalJSON reads what MarshalJSON writes: the words come back as
// one clause holding the facts.
func (c *Change) UnmarshalJSON(b []byte) error {
	var j changeJSON
	if err := verdict.DecodeStrict(b, &j); err != nil {
		return err
	}
	*c = Change{Key: j.Key, Current: j.Current, Proposed: j.Proposed, Why: verdict.Sent(j.Why, j.WhyFacts)}
	return nil
}
