//go:build !race

package promread

// raceBuild: see race_on_test.go.
const raceBuild = false
