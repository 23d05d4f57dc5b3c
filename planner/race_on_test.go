//go:build race

package planner

// raceEnabled: the tests run under the race detector, several times
// slower; the exhaustive ones then check fewer graphs (the detector looks
// for races, which a few graphs exercise as well as many).
const raceEnabled = true
