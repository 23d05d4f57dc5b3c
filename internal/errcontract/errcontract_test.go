package errcontract_test

import (
	"errors"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

// taskGraph is a one-task graph whose port has the tile and whose only
// alternative realizes it by the layout (both JSON strings).
func taskGraph(tile, layout string) string {
	return `{"version": 1, "target": "h200",
	 "tasks": {"t": {"ports": {"x": {"direction": "out", "tile": ` + tile + `, "element": "f16"}},
	   "alternatives": [{"id": "a", "ports": {"x": {"layout": ` + layout + `}}, "cost": {"ns": 1}}]}},
	 "invocations": [{"id": "t", "task": "t"}]}`
}

// find reports whether errors.As finds an error of type *T in err, and
// returns it.
func find[T error](err error) (T, bool) {
	var target T
	ok := errors.As(err, &target)
	return target, ok
}

// TestErrorsKeepTheirTypeAcrossPackages makes, for every pair of packages
// that pass errors along (outer ← inner), an outer error caused by the
// inner package, and checks that errors.As finds the inner type and that the
// inner message appears unedited inside the outer one.
func TestErrorsKeepTheirTypeAcrossPackages(t *testing.T) {
	type check func(err error) (inner error, ok bool)
	spaceSyntax := func(err error) (error, bool) { e, ok := find[*indexspace.SyntaxError](err); return e, ok }
	mapSyntax := func(err error) (error, bool) { e, ok := find[*indexmap.SyntaxError](err); return e, ok }
	mapKind := func(err error) (error, bool) { e, ok := find[*indexmap.KindError](err); return e, ok }

	tests := []struct {
		pair  string
		why   string
		err   func() error
		inner check
	}{
		{"indexmap ← indexspace", "a map's JSON form with a space whose text does not parse",
			func() error {
				var m indexmap.Map
				return json.Unmarshal([]byte(`{"domain": {"space": "(m:0)"}, "codomain": {"space": "(a:2)"}, "results": ["m"]}`), &m)
			}, spaceSyntax},
		{"storage ← indexmap (syntax)", "a layout's text form whose address map does not parse",
			func() error {
				_, err := storage.Parse("shared f32 bytes: logical(k:4) -> physical(a:16) = (k *)")
				return err
			}, mapSyntax},
		{"storage ← indexmap (kinds)", "a layout's text form whose address map aliases two elements",
			func() error {
				_, err := storage.Parse("shared f32 bytes: logical(k:4) -> physical(a:16) = (k / 2 * 4)")
				return err
			}, mapKind},
		{"storage ← indexmap (JSON)", "a layout's JSON form with an aliasing map",
			func() error {
				var l storage.Layout
				return json.Unmarshal([]byte(`{"memory": "shared", "element": "f32", "map": "logical(k:4) -> physical(a:4) = (k / 2)"}`), &l)
			}, mapKind},
		{"tasks ← indexspace", "a task graph whose port tile text does not parse",
			func() error {
				_, err := tasks.Load([]byte(taskGraph(`"(m:0)"`, `"global f16 elements: logical(m:4) -> physical(a:4) = (m)"`)))
				return err
			},
			spaceSyntax},
		{"tasks ← storage ← indexmap (kinds)", "a task graph whose layout aliases two elements",
			func() error {
				_, err := tasks.Load([]byte(taskGraph(`"(m:4)"`, `"global f16 elements: logical(m:4) -> physical(a:4) = (m / 2)"`)))
				return err
			},
			mapKind},
		{"storage ← indexspace", "a layout's JSON form whose map's space does not parse",
			func() error {
				var l storage.Layout
				return json.Unmarshal([]byte(`{"memory": "shared", "element": "f32", "map": {"domain": {"kind": "logical", "space": "(k:"}, "codomain": {"kind": "physical", "space": "(a:4)"}, "results": ["k"]}}`), &l)
			}, spaceSyntax},
		{"distribution ← indexmap", "an ownership expression that does not parse",
			func() error {
				_, err := distribution.New(distribution.Spec{
					Name:      "bad",
					Executors: []distribution.ExecutorAxis{{Name: "lane", Size: 4, Level: distribution.LevelLane}},
					Tile:      []distribution.Axis{{Name: "m", Size: 4}},
					Ownership: []string{"lane +"},
				})
				return err
			}, mapSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.pair, func(t *testing.T) {
			err := tt.err()
			if err == nil {
				t.Fatalf("%s: no error", tt.why)
			}
			inner, ok := tt.inner(err)
			if !ok {
				t.Fatalf("%s: errors.As finds no error of the inner package in %q (%T)", tt.why, err, err)
			}
			text := inner.Error()
			if se, ok := inner.(*indexmap.SyntaxError); ok {
				// A syntax error is re-based on the outer text: its offset
				// changes, its message does not.
				text = se.Msg
			}
			if !strings.Contains(err.Error(), text) {
				t.Errorf("%s: the outer message %q does not hold the inner one %q unedited", tt.why, err, inner)
			}
		})
	}
}
