package highs

import "time"

// CheckVersion and CheckIntSize expose the library checks to the external
// tests.
var (
	CheckVersion = checkVersion
	CheckIntSize = checkIntSize
)

// OptionText exposes optionText to the external tests.
func (s *Solver) OptionText() (string, error) { return s.optionText() }

// SetAbandonAfter sets how long a cancelled run may go on before the call
// returns without it (abandonAfter), and returns the function that puts
// it back.
func SetAbandonAfter(d time.Duration) (restore func()) {
	old := abandonAfter
	abandonAfter = d
	return func() { abandonAfter = old }
}
