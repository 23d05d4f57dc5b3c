package tasks

import "github.com/cklplan/cklplan/internal/jsonv"

// The problems of a task graph or a measured-costs file, as a program
// outside this module inspects them: Load, Build, New, LoadMeasured and
// WithMeasured return a Problems (every problem found, sorted by path), which
// errors.As finds:
//
//	var ps tasks.Problems
//	if errors.As(err, &ps) {
//		for _, p := range ps {
//			fmt.Println(p.Path, p.Code, p.Msg, p.Warning)
//		}
//	}
//
// These are aliases of an internal package's types, so go doc does not
// list their methods here. A Problems has Errors() and Warnings() (the
// problems of each kind, in order), Where() (each problem as "PATH CODE")
// and Sort(); its Error() is every problem, one per line, the errors first
// and then the warnings (ErrorsFirst), each kind in path order. A Path has
// String() (the JSON path, "$.edges[4].to"), Len() and At(i) (step i: an
// object key, index -1, or an array index, key ""), Key(k) and Index(i)
// (a step further), Equal and Compare.
type (
	// A Problem is one problem: where (Path, and Offset in the bytes when
	// it came from parsing them, else -1), what kind (Code), what (Msg),
	// and whether it is only a Warning.
	Problem = jsonv.Problem
	// Problems is every problem found, itself an error.
	Problems = jsonv.Problems
	// A Path locates a value in the JSON document ("$.edges[4].to"); a
	// graph built in Go has the paths its JSON form would have.
	Path = jsonv.Path
	// A Code names the kind of a problem, stably: programs may match on it.
	Code = jsonv.Code
)

// The codes of every JSON document's problems; the task graph's own are
// CodeDirection and the others in validate.go. docs/format.md lists them.
const (
	CodeSyntax        = jsonv.Syntax        // not JSON
	CodeType          = jsonv.Type          // a value of the wrong JSON type
	CodeUnknownField  = jsonv.UnknownField  // a key the format does not have
	CodeDuplicateKey  = jsonv.DuplicateKey  // a key twice in one object
	CodeMissing       = jsonv.Missing       // a required key is absent
	CodeRange         = jsonv.Range         // a number out of its range
	CodeInvalid       = jsonv.Invalid       // a value the format does not allow
	CodeLimit         = jsonv.Limit         // over a reader's cap
	CodeUnknownName   = jsonv.UnknownName   // a name that is not defined
	CodeDuplicateName = jsonv.DuplicateName // a name defined twice
)
