// Package sources reads the kernel and produces model values: one file per
// collector. Every collector takes its filesystem roots (/proc, /sys, /dev)
// from its constructor, so tests run on fixture trees under testdata/.
//
// Data that is missing on this kernel or needs privileges is reported in
// the sample (a status or a note), never as an error that hides the rest.
package sources
