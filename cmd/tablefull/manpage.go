package main

import _ "embed" // tablefull(1)

// manPage is tablefull(1) in roff, written from the subcommand table,
// its flag sets and the console's keymap by `go test ./cmd/tablefull
// -update-man` (TestManPageIsCurrent fails when it is not theirs).
//
//go:embed tablefull.1
var manPage string
