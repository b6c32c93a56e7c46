// Package model holds what tablefull reads of a host, as data: a sample
// of cumulative kernel counters and the rates between two samples, the
// census of the table's entries and the classes they fall in, who owns
// them (processes, pods, peers), and the extra tables and readers a
// sample carries (NAT pools, namespaces, zones, Cilium's maps, IPVS,
// flushes, listeners).
//
// Its rooms: model/diagnose judges a moment (the fill and its arithmetic,
// episodes, the verdict rules and the one table of kinds, the analyzer
// that makes a frame); model/verdict is a verdict as typed facts and its
// renderers; model/tuning plans and loops over knobs; model/incident and
// model/story fold a recording for its report; model/entry and
// model/fleet are the entries list and the fleet's rows. Below the root:
// model/tally (bounded counting), model/arith (the table's arithmetic),
// model/knob (the knobs' keys and drift), model/safe (foreign text made
// printable) and model/units (numbers as printed).
//
// Everything here is a pure function of its inputs and imports only the
// standard library, so live collection, remote agents, recordings and the
// demo all produce and analyse the same values.
package model
