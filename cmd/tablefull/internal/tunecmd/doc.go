// Package tunecmd is tablefull tune's command line: its flags
// (CommandOptions), the flow that measures, proposes, previews, applies,
// persists and undoes (Command), the guided loop (--until-free) and what
// each prints. Every knob it writes goes through sources/tune.
package tunecmd
