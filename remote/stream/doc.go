// Package stream is tablefull's stream: one versioned, line-oriented
// format for samples and events, its encoder and its bounded decoder, and
// the writing of a feed as a stream (Start). The agent (remote/agent), a
// recording (remote/recording), the system ssh client, any command and
// the embedded demo all carry it.
//
// # Format, version 1
//
// A stream is UTF-8 JSON, one object per line ("JSON Lines"). The first
// line is the header:
//
//	{"tablefull":"stream","v":1,"host":{"name":"vm","kernel":"6.18.44","cpus":2,
//	 "mem_total_bytes":25276063744,"source":"local"},"started":"2026-11-29T20:00:00Z"}
//
// Every further line is a record with a "k" (kind) field:
//
//	{"k":"s", ...}   a sample (short keys, counters as arrays)
//	{"k":"e","et":<unix ms>,"type":"...","text":"..."}   an event
//
// The fields of a record, each with what it holds, are listed in
// FORMAT.md, written from the vocabulary (vocabulary.go): the stream's
// one vocabulary, which also writes, reads and bounds the sample's fields
// it carries as their model's JSON, and against which the encoder's row
// keys and the scanner's are checked.
//
// Compatibility: readers ignore fields and record kinds they do not know,
// so a version 1 reader reads any 1.x stream; a header with a larger "v"
// is refused with a message naming both versions, and one without a
// version of at least 1 is not a stream. A recording is a saved
// stream: a torn last line (a writer killed mid-line) is ignored.
//
// # Limits
//
// A reader bounds what one line may cost (limits.go): 4 MiB a line, 8,192
// CPUs, 4,096 disks, 1,024 kernel-log lines and 32 notes a sample, 1 KiB a
// string, rows of a fixed shape. A line over them is dropped with
// ErrGarbage (wrapping ErrTooBig) and the stream goes on. The Decoder
// skips and counts damaged lines itself (Damaged, OnDamaged) and ends at
// a torn last line as at the end (Torn): every reader (a recording, a
// replay, the report, a remote session) keeps one policy.
package stream
