// Package chart is the console's one adaptation of ntcharts: the count
// over time with the cap, pinned intervals and a mark, drawn with
// ntcharts' axes, labels and line runes on a canvas cleared in place
// (Draw allocates a new canvas each time and averages a column's
// points, which drew a one-second burst to the cap well below it), and
// rendered by runs of equally styled cells, reading only the cells a
// rebuild can have drawn on (ntcharts hands out each 560-byte cell by
// copy). Everything that depends on how ntcharts lays out a chart lives
// here, and its tests fail when an upgrade moves it.
package chart
