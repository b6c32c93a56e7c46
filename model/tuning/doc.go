// Package tuning is tuning's pure half: the knobs' specs and values
// (ParseValue), the plan computed from the demand and the classes that
// fill the table (ProposePlan) with its memory cost, the one plan every
// surface shows (Diagnose), the loop after an apply (JudgeLoop,
// NextStep) and the way back down, and the one interface every tuner
// writes through (Tuner, KnobState, Step). It writes nothing: the tuners
// are in sources/tune and remote. Standard library and model only.
package tuning
