package indexmap

import (
	"errors"
	"fmt"
	"strings"
)

// A KindError reports a map that breaks the rule of its sides' kinds; Witness
// is the evidence (two points with one image, a point out of range, a
// codomain point not reached).
type KindError struct {
	Domain, Codomain Kind
	Rule             string
	Witness          string
	// Err is what stopped the check, where the map could not be checked
	// (ErrTooLarge: a domain past the enumeration limit); nil otherwise.
	Err error
}

// Unwrap returns the error that stopped the check, if any: errors.Is(err,
// ErrTooLarge) holds for a map too large to check.
func (e *KindError) Unwrap() error { return e.Err }

func (e *KindError) Error() string {
	msg := fmt.Sprintf("indexmap: %v -> %v map: %s", e.Domain, e.Codomain, e.Rule)
	if e.Witness != "" {
		msg += ": " + e.Witness
	}
	return msg
}

// checkKinds enforces the kind rules (docs/algebra.md) on a new map:
//
//   - results do not depend on broadcast axes (a broadcast is a stride ⊥);
//   - in a typed map, every non-broadcast domain axis of size ≥ 2 affects the
//     image: a zero stride is rejected, replication must be declared;
//   - a map into logical or thread-value is a dense bijection (once broadcast
//     axes are factored out);
//   - a map into physical lands in the codomain and is alias-free except along
//     broadcast axes;
//   - out of physical only physical → physical bijections (swizzles) exist,
//     unguarded and without broadcast.
func (m Map) checkKinds() error {
	sp := m.dom.Space
	bc := m.broadcastLeaves()
	used := make([]bool, sp.NumLeaves())
	for j, e := range m.results {
		dep := make([]bool, sp.NumLeaves())
		dependsOn(e, sp, dep)
		for i, d := range dep {
			if d && bc[i] {
				return fmt.Errorf("indexmap: result %s depends on %s, which is declared broadcast", m.cod.Space.Leaf(j).Name, sp.Leaf(i).Name)
			}
			used[i] = used[i] || d
		}
	}
	if m.dom.Kind == Untyped && m.cod.Kind == Untyped {
		return nil
	}
	kerr := func(rule, witness string) error {
		return &KindError{Domain: m.dom.Kind, Codomain: m.cod.Kind, Rule: rule, Witness: witness}
	}
	if m.dom.Kind == Physical {
		if m.cod.Kind != Physical {
			return kerr("nothing maps out of physical except a physical -> physical swizzle", "")
		}
		if len(m.broadcast) > 0 || !m.guard.IsTrue() {
			return kerr("a swizzle is an unguarded bijection without broadcast", "")
		}
	}
	if m.cod.Kind != Untyped {
		for i, l := range sp.Leaves() {
			if l.Size >= 2 && !bc[i] && !used[i] {
				return kerr(fmt.Sprintf("axis %s does not affect the image (a zero stride); declare broadcast(%s) if replication is meant", l.Name, l.Name), "")
			}
		}
	}
	var p Properties
	var err error
	switch m.cod.Kind {
	case Logical, ThreadValue, Physical:
		p, err = m.Decide()
		if errors.Is(err, ErrTooLarge) {
			ke := kerr("cannot be checked", err.Error()).(*KindError)
			ke.Err = err
			return ke
		}
		if err != nil {
			return err
		}
	default:
		return nil
	}
	switch {
	case m.dom.Kind == Physical && !p.DenseBijection:
		return kerr("a swizzle must be a bijection onto its codomain", p.Witness)
	case m.cod.Kind == Logical || m.cod.Kind == ThreadValue:
		if !p.DenseBijection {
			return kerr("a map into "+m.cod.Kind.String()+" must be a dense bijection", p.Witness)
		}
	case !p.InRange:
		return kerr("a map into physical must stay in its codomain", p.Witness)
	case !p.AliasFree:
		return kerr("a map into physical must be alias-free except along declared broadcast axes", p.Witness)
	}
	return nil
}

// An OpError is the error of an operation (compose, restrict, inverse) that
// failed because a step it took failed; it names the operation once, before
// the step's own message, and unwraps to the step's error.
type OpError struct {
	Op  string
	Err error
}

func (e *OpError) Error() string {
	return "indexmap: " + e.Op + ": " + strings.TrimPrefix(e.Err.Error(), "indexmap: ")
}

func (e *OpError) Unwrap() error { return e.Err }
