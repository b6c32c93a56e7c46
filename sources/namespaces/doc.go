// Package namespaces finds every network namespace of the host (through
// its processes and its bind mounts, bounded and in an order a user
// cannot game), names each, and reads each one's table: its count and cap
// through the namespace's /proc files, its drops by entering it briefly
// when near the cap. It never changes a namespace.
package namespaces
