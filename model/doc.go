// Package model holds tablefull's data and analysis: samples of cumulative
// kernel counters, the rates between two samples, bounded history with
// peak-hold, pinned-at-cap episodes, the classes that fill the table and
// their arithmetic (ceiling = max ÷ hold), who fills it, and the verdict
// rules. Two families have packages of their own: model/tuning (the
// knobs, the plan and the loop) and model/incident (an incident folded
// for its report).
//
// Everything here is a pure function of its inputs and imports only the
// standard library, so live collection, remote agents, recordings and the
// demo all produce and analyse the same values.
package model
