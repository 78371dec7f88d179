//go:build race

package fake

// raceEnabled: under the race detector sync.Pool drops a share of what is put in it at random, so
// a pooled path allocates some of the time and allocation counts are not the program's.
const raceEnabled = true
