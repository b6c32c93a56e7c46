// Package oneshot prints what the one-shot commands print: a host's
// snapshot (tablefull snapshot, text or JSON) and a census (tablefull
// census).
package oneshot
