package highs

// CheckVersion and CheckIntSize expose the library checks to the external
// tests.
var (
	CheckVersion = checkVersion
	CheckIntSize = checkIntSize
)

// OptionText exposes optionText to the external tests.
func (s *Solver) OptionText() (string, error) { return s.optionText() }
