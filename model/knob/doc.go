// Package knob names the kernel knobs tablefull tunes, once for every
// room, and says where a persisted value drifted from the live one.
package knob
