//go:build race

package promread

// raceBuild: the race detector instruments every allocation and drops
// sync.Pool's items at random (encoding/json's scanners among them), so
// what decoding allocates is not the production build's.
const raceBuild = true
