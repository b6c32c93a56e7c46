// Package arith is the table's arithmetic: the ceiling of new entries a
// cap admits (max ÷ hold), the working set a rate holds, chain depth and
// shares.
package arith
