package highs

// CheckVersion exposes checkVersion to the external tests.
var CheckVersion = checkVersion

// OptionText exposes optionText to the external tests.
func (s *Solver) OptionText() (string, error) { return s.optionText() }
