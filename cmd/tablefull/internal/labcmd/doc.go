// Package labcmd is tablefull lab's command line: its flags (Command),
// the flow that builds a scenario, shows it in the console or as
// headless lines (Headless) through the agent inside it, and restores
// the host on every way out (Command.Run). The incidents themselves are
// sources/lab's.
package labcmd
