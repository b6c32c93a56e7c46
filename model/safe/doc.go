// Package safe makes foreign text (a stream, a recording, a command's
// output, a label) printable on a terminal and in a report.
package safe
