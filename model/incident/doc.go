// Package incident folds a run of frames into the story of an incident,
// in one pass and bounded memory: when the table climbed and pinned, how
// long each verdict held, the server's load while pinned, the peaks of
// demand and of what filled the table, the knob changes seen and their
// before and after, the other namespaces that filled, and a timeline of
// the verdicts' changes. The report reads it; the exporter counts held
// time by the same rule (diagnose.Frame.HeldFor). Standard library, model's
// and model/tuning only (the plan of an incident's moment is the one
// tuning.Diagnose makes).
package incident
