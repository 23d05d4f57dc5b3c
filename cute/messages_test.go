package cute

import (
	"strings"
	"testing"
)

// TestCompoundErrorsNameTheOperands checks that an operation built from
// others (products from the complement and composition, divides likewise)
// reports a failed step in terms of the operands it was given: its own name
// alone, not the chain of steps, and no intermediate layout (a padded
// operand, the tiler with its complement, the complement itself).
func TestCompoundErrorsNameTheOperands(t *testing.T) {
	tests := []struct {
		op           string
		a, b         string
		code         Code
		intermediate []string // texts the message must not hold
	}{
		{"raked_product", "(2,2):(1,3)", "3:1", CodeNoComplement, []string{"logical_product:", "complement:", "((2,2),1)"}},
		{"blocked_product", "(2,2):(1,3)", "(3,2):(1,3)", CodeNoComplement, []string{"logical_product:", "complement:"}},
		{"logical_product", "(2,2):(1,3)", "3:1", CodeNoComplement, []string{"complement:"}},
		{"logical_divide", "(2,2):(1,3)", "3:1", CodeNotALayout, []string{"(3,2):(1,3)", "composition:", "∘"}},
		{"zipped_divide", "(4,2):(1,3)", "3:1", CodeNotALayout, []string{"logical_divide:", "(3,3):(1,3)", "∘"}},
		{"logical_divide", "24:1", "(2,2):(1,3)", CodeNoComplement, []string{"complement:"}},
	}
	for _, tt := range tests {
		a, b := MustParse(tt.a), MustParse(tt.b)
		var err error
		switch tt.op {
		case "raked_product":
			_, err = RakedProduct(a, b)
		case "blocked_product":
			_, err = BlockedProduct(a, b)
		case "logical_product":
			_, err = LogicalProduct(a, LayoutTiler(b))
		case "logical_divide":
			_, err = LogicalDivide(a, LayoutTiler(b))
		case "zipped_divide":
			_, err = ZippedDivide(a, LayoutTiler(b))
		}
		e, ok := err.(*Error)
		if !ok || e.Code != tt.code {
			t.Errorf("%s(%s, %s): error %v, want code %s", tt.op, tt.a, tt.b, err, tt.code)
			continue
		}
		msg := e.Error()
		if !strings.HasPrefix(msg, "cute: "+tt.op+": ") || !strings.Contains(msg, tt.a) || !strings.Contains(msg, tt.b) {
			t.Errorf("%s(%s, %s): %q does not name the operation and both operands", tt.op, tt.a, tt.b, msg)
		}
		for _, s := range tt.intermediate {
			if strings.Contains(msg, s) {
				t.Errorf("%s(%s, %s): %q holds %q", tt.op, tt.a, tt.b, msg, s)
			}
		}
	}
}
