package cute

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in, want string
		size, cosize   int
		table          []int // nil: not checked
	}{
		{"integral", "12:1", "12:1", 12, 12, nil},
		{"Tiling Is Function Composition: A", "(6,2):(8,2)", "(6,2):(8,2)", 12, 43, []int{0, 8, 16, 24, 32, 40, 2, 10, 18, 26, 34, 42}},
		{"nested", "((2,2),3):((24,2),8)", "((2,2),3):((24,2),8)", 12, 43, []int{0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42}},
		{"blanks", " ( 6 , 2 ) : ( 8 , 2 ) ", "(6,2):(8,2)", 12, 43, nil},
		{"shape alone is compact column-major", "(4,3)", "(4,3):(1,4)", 12, 12, nil},
		{"integer alone", "12", "12:1", 12, 12, nil},
		{"nested shape alone", "((2,2),3)", "((2,2),3):((1,2),4)", 12, 12, nil},
		{"broadcast", "(4,3):(0,1)", "(4,3):(0,1)", 12, 3, []int{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}},
		{"negative stride", "4:-1", "4:-1", 4, 1, []int{0, -1, -2, -3}},
		{"plus sign", "+4:+1", "4:1", 4, 4, nil},
		{"rank-1 tuple", "(6):(8)", "(6):(8)", 6, 41, nil},
		{"depth 2", "(2,(1,6)):(1,(6,2))", "(2,(1,6)):(1,(6,2))", 12, 12, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{"CuTe's print of static integers", "(_5,(_2,_2)):(_16,(_80,_4))", "(5,(2,2)):(16,(80,4))", 20, 149, nil},
		{"static and dynamic mixed", "(_4,2):(1,_-4)", "(4,2):(1,-4)", 8, 4, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got := l.String(); got != tt.want {
				t.Errorf("Parse(%q) = %s, want %s", tt.in, got, tt.want)
			}
			if l.Size() != tt.size || l.Cosize() != tt.cosize {
				t.Errorf("%v: size %d cosize %d, want %d %d", l, l.Size(), l.Cosize(), tt.size, tt.cosize)
			}
			table := l.Table()
			for i, v := range table {
				if e := l.Eval(i); e != v {
					t.Fatalf("%v: Eval(%d) = %d, Table has %d", l, i, e, v)
				}
			}
			if tt.table != nil && !slices.Equal(table, tt.table) {
				t.Errorf("%v: table %v, want %v", l, table, tt.table)
			}
			back, err := Parse(l.String())
			if err != nil || !back.Equal(l) {
				t.Errorf("Parse(%q) = %v, %v; want %v", l.String(), back, err, l)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		code     *Error
		msg      string
	}{
		{"empty", "", ErrSyntax, `cute: parse: "": at end of input: expected an integer or '('`},
		{"empty tuple", "()", ErrSyntax, `cute: parse: "()": at offset 1 (")"): expected an integer or '('`},
		{"unclosed", "(6,2", ErrSyntax, `cute: parse: "(6,2": at end of input: expected ',' or ')'`},
		{"trailing", "6:1)", ErrSyntax, `cute: parse: "6:1)": at offset 3 (")"): unexpected text after the end`},
		{"missing stride", "6:", ErrSyntax, `cute: parse: "6:": at end of input: expected an integer or '('`},
		{"not congruent", "(6,2):8", ErrInvalid, `cute: parse: "(6,2):8": at offset 0: shape (6,2) and stride 8 are not congruent`},
		{"zero shape", "(0,2):(1,1)", ErrInvalid, `cute: parse: "(0,2):(1,1)": at offset 0: shape entry 0 of (0,2) is 0, not positive`},
		{"huge integer", "99999999999999999999:1", ErrSyntax, `cute: parse: "99999999999999999999:1": at offset 0 ("99999999"): integer 99999999999999999999 exceeds 2^62 in magnitude`},
		{"size overflow", "(2147483648,2147483648,2):(1,1,1)", ErrOverflow, `cute: parse: "(2147483648,2147483648,2):(1,1,1)": at offset 0: size of shape (2147483648,2147483648,2) exceeds 2^62`},
		{"value overflow", "(3,3):(1,4611686018427387904)", ErrOverflow, `cute: parse: "(3,3):(1,4611686018427387904)": at offset 0: values of (3,3):(1,4611686018427387904) exceed 2^62 in magnitude`},
		{"letter", "(a,2)", ErrSyntax, `cute: parse: "(a,2)": at offset 1 ("a,2)"): expected an integer or '('`},
		{"underscore alone", "(4,_):(1,4)", ErrSyntax, `cute: parse: "(4,_):(1,4)": at offset 3 ("_):(1,4)"): expected an integer or '('`},
		{"long input quoted in part", "(" + strings.Repeat("2,", 60) + "x)", ErrSyntax,
			`cute: parse: "(2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2"…"2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,x)" (123 bytes): at offset 121 ("x)"): expected an integer or '('`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in)
			if !errors.Is(err, tt.code) {
				t.Fatalf("Parse(%q) = %v, want code %s", tt.in, err, tt.code.Code)
			}
			if err.Error() != tt.msg {
				t.Errorf("Parse(%q):\n got %s\nwant %s", tt.in, err, tt.msg)
			}
		})
	}
}

func TestZeroLayout(t *testing.T) {
	var l Layout
	if l.String() != "1:0" || l.Size() != 1 || l.Cosize() != 1 || l.Eval(0) != 0 {
		t.Fatalf("zero Layout = %v, size %d, cosize %d", l, l.Size(), l.Cosize())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"12:1", "(6,2):(8,2)", "((2,2),3):((24,2),8)", "(4,3)", "4:-1", "(", "((((", "1:(", "(2,(1,6)):(1,(6,2))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q): untyped error %v", s, err)
			}
			return
		}
		back, err := Parse(l.String())
		if err != nil || !back.Equal(l) {
			t.Fatalf("Parse(%q) = %v, which parses back as %v, %v", s, l, back, err)
		}
		if l.Size() <= 1<<12 {
			table := l.Table()
			for i := range table {
				if l.Eval(i) != table[i] {
					t.Fatalf("%v: Eval(%d) disagrees with Table", l, i)
				}
			}
		}
	})
}

func FuzzParseTuple(f *testing.F) {
	for _, s := range []string{"24", "(2,(3,4))", "-1", "(", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tu, err := ParseTuple(s)
		if err != nil {
			return
		}
		back, err := ParseTuple(tu.String())
		if err != nil || !back.Equal(tu) {
			t.Fatalf("ParseTuple(%q) = %v, which parses back as %v, %v", s, tu, back, err)
		}
	})
}

func ExampleParse() {
	l, err := Parse("((2,2),3):((24,2),8)")
	if err != nil {
		panic(err)
	}
	fmt.Println(l, l.Size(), l.Cosize(), l.Eval(5), l.Table())
	// Output: ((2,2),3):((24,2),8) 12 43 32 [0 24 2 26 8 32 10 34 16 40 18 42]
}

// TestDocumentedLayouts checks the examples of CuTe's 01_layout.md: the
// layouts make_layout builds from a shape, and their 1-D tables.
func TestDocumentedLayouts(t *testing.T) {
	tests := []struct {
		name, in, want string
		table          []int
	}{
		{"s2xs4", "(2,4):(1,2)", "(2,4):(1,2)", []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"s2xd4_a", "(2,4):(12,1)", "(2,4):(12,1)", []int{0, 12, 1, 13, 2, 14, 3, 15}},
		{"s2xh4_col", "(2,(2,2))", "(2,(2,2)):(1,(2,4))", []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"s2xh4", "(2,(2,2)):(4,(2,1))", "(2,(2,2)):(4,(2,1))", []int{0, 4, 2, 6, 1, 5, 3, 7}},
		{"vector 8:2", "8:2", "8:2", []int{0, 2, 4, 6, 8, 10, 12, 14}},
		{"rank-1 vector ((4,2)):((2,1))", "((4,2)):((2,1))", "((4,2)):((2,1))", []int{0, 2, 4, 6, 1, 3, 5, 7}},
		{"identity ((4,2)):((1,4))", "((4,2)):((1,4))", "((4,2)):((1,4))", []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"row-major 4x2", "(4,2):(2,1)", "(4,2):(2,1)", []int{0, 2, 4, 6, 1, 3, 5, 7}},
		{"multi-mode 4x2", "((2,2),2):((4,1),2)", "((2,2),2):((4,1),2)", []int{0, 4, 1, 5, 2, 6, 3, 7}},
		{"make_layout (4,(3,6))", "(4,(3,6))", "(4,(3,6)):(1,(4,12))", nil},
		{"make_layout (2,3,5,7)", "(2,3,5,7)", "(2,3,5,7):(1,2,6,30)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := MustParse(tt.in)
			if l.String() != tt.want {
				t.Fatalf("Parse(%q) = %v, want %s", tt.in, l, tt.want)
			}
			if tt.table != nil && !slices.Equal(l.Table(), tt.table) {
				t.Fatalf("%v: table %v, want %v", l, l.Table(), tt.table)
			}
		})
	}
	// crd2idx(16, (3,(2,3)), (3,(12,1))) = 17, and the documentation's 2-D table.
	l := MustParse("(3,(2,3)):(3,(12,1))")
	if l.Eval(16) != 17 {
		t.Errorf("%v(16) = %d, want 17", l, l.Eval(16))
	}
	rows := [][]int{{0, 12, 1, 13, 2, 14}, {3, 15, 4, 16, 5, 17}, {6, 18, 7, 19, 8, 20}}
	for m, row := range rows {
		for n, want := range row {
			if got := l.Eval(m + 3*n); got != want {
				t.Errorf("%v(%d,%d) = %d, want %d", l, m, n, got, want)
			}
		}
	}
	if f := Flatten(MustParse("((2,3),(5,7)):((1,2),(6,30))")); f.String() != "(2,3,5,7):(1,2,6,30)" {
		t.Errorf("flatten = %v", f)
	}
	a := MustParse("(4,(3,6)):(1,(4,12))")
	if a.Mode(0).String() != "4:1" || a.Mode(1).String() != "(3,6):(4,12)" || a.Mode(1).Mode(0).String() != "3:4" {
		t.Errorf("modes of %v: %v, %v", a, a.Mode(0), a.Mode(1))
	}
}
