// Package agent is the link to tablefull on another box: the agent's
// process as the console runs it (Process: ssh, `ip netns exec`, any
// command that prints a stream; Dests, the remotes as the flags name
// them; the deploy of a binary over ssh) and the control protocol that
// rides beside its stream.
//
// # Control
//
// `tablefull agent` reads requests from stdin, one JSON object per line:
//
//	{"op":"interval","ms":500}
//	{"op":"census","on":true}   (walk the table every few seconds, see model.CensusEvery)
//	{"op":"stop"}
//
// and, for the console's tuning panel, requests answered by an event of
// the same type whose text is a JSON Reply carrying the request's id:
//
//	{"op":"knobs","id":1}                                the knobs (tuning.KnobState)
//	{"op":"apply","id":2,"confirm":true,"changes":[...],"count":4096}
//	{"op":"persist","id":3,"confirm":true,"changes":[...]}
//	{"op":"undo","id":4,"confirm":true}
//
// and, for the console's entries panel:
//
//	{"op":"entries","id":5,"filter":"-p udp --dport 53","sort":"timeout","limit":64}
//	{"op":"delete","id":6,"confirm":true,"filter":"-p udp --reply-src 10.80.0.2"}
//	{"op":"follow","id":7,"on":true,"filter":"-p udp --dport 53"}   (one follow at a time; "on":false ends it)
//	{"op":"followed","id":8}   what the follow saw so far (FollowReply)
//
// An entries reply carries at most MaxAgentRows rows and the counts of
// every match; a filter is read and re-rendered as conntrack(8) takes it
// (entry.ParseFilter). A delete never takes established connections
// and is journalled on the agent's host.
//
// The agent is read-only unless it runs as root and the request carries
// "confirm": true; otherwise it answers with an error and changes nothing.
//
// Ops are typed constants (Op), the request and reply types and the serve
// loop (Serve) are in this package, and both ends encode them with
// encoding/json. Every request is validated where it lands, whatever the
// console checked before sending it (Request.Check): an unknown op, an
// interval outside 100 ms…1 h, a change to a knob tablefull does not know,
// a knob given twice, or a value that does not parse as the knob's numbers
// is refused with "bad request" and nothing is planned or written. Values
// are re-rendered from the parsed numbers (tuning.CheckChanges), and the
// persister parses them once more before it writes: no text of a
// request's reaches /etc. A request line over MaxRequest (64 KiB), or junk
// without newlines, ends the agent with an error on stderr and a non-zero
// exit; a line that is not JSON is skipped with a note on stderr.
//
// The reply to knobs carries the agent's tuning.KnobState: values, bytes
// per entry, whether it writes the global knobs, a note, the managers
// that own knobs, the last step of an apply; the console checks it where
// it lands (KnobState.Check: known knobs, values re-rendered, texts bounded
// and sanitised).
//
// It exits when stdin closes, so an agent never outlives its SSH session,
// and it never opens a listening socket; a write under way is finished
// first (its undo record is written before the first knob). A request
// whose stream ends before its answer is answered by the console itself
// with tuning.ErrLinkCut: what it did is read again once the link is back.
package agent
