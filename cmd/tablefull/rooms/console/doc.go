// Package console is a room of tablefull's end-to-end tests: the live console in tmux (its screens, keys, rest, hangup, every namespace, the newcomer's first hour). It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package console
