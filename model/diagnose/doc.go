// Package diagnose judges a moment: from samples (model) it computes the
// fill of the table by class and its arithmetic (ceiling = max ÷ hold),
// the demand, pinned episodes, and the verdicts — the one table of kinds
// and the rules that build each verdict's typed facts — and the analyzer
// folds them into a frame, the one value every surface draws.
package diagnose
