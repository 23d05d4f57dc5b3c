package indexmap

// checkKinds enforces the kind rules of the seed's algebra on a new map.
// (Filled in with the property deciders; structural checks live in New.)
func (m Map) checkKinds() error { return nil }
