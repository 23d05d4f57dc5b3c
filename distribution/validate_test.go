package distribution

import (
	"errors"
	"strings"
	"testing"
)

// lane32 is the executor space of one warp.
var lane32 = []ExecutorAxis{{Name: "lane", Size: 32, Level: LevelLane}}

func cSpec(m, n string) Spec {
	return Spec{Name: "c", Executors: lane32, Locals: []Axis{{"v", 4}}, Tile: []Axis{{"m", 16}, {"n", 8}}, Ownership: []string{m, n}}
}

func TestValidityErrors(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		// want lists the first problems, in order, as "kind: message".
		want []string
	}{
		{
			name: "dropping v%2 owns even columns twice and odd ones never",
			spec: cSpec("lane / 4 + 8 * (v / 2)", "lane % 4 * 2"),
			want: []string{
				"owned twice: element (m=0, n=0) is owned by lane=0 v=0 and by lane=0 v=1",
				"owned twice: element (m=8, n=0) is owned by lane=0 v=2 and by lane=0 v=3",
			},
		},
		{
			name: "every odd column unowned",
			spec: cSpec("lane / 4 + 8 * (v / 2)", "lane % 4 * 2"),
			want: []string{"not owned: element (m=0, n=1) is owned by no executor"},
		},
		{
			name: "shifted column leaves the tile",
			spec: cSpec("lane / 4 + 8 * (v / 2)", "lane % 4 * 2 + v % 2 + 1"),
			want: []string{"outside tile: lane=3 v=1 owns (m=0, n=8), outside the tile (m:16, n:8)"},
		},
		{
			name: "two values in one register slot",
			spec: func() Spec {
				s := cSpec("lane / 4 + 8 * (v / 2)", "lane % 4 * 2 + v % 2")
				s.Storage = "v / 2 * 2"
				return s
			}(),
			want: []string{"slot shared: values v=0 and v=1 share register slot 0", "slot shared: values v=2 and v=3 share register slot 2"},
		},
		{
			name: "register slot past the end",
			spec: func() Spec {
				s := cSpec("lane / 4 + 8 * (v / 2)", "lane % 4 * 2 + v % 2")
				s.Storage = "v + 1"
				return s
			}(),
			want: []string{"slot out of range: value v=3 goes to register slot 4, outside 0..3"},
		},
		{
			name: "a warp axis the map ignores, not declared replicated",
			spec: Spec{Name: "c2", Executors: []ExecutorAxis{{Name: "warp", Size: 2, Level: LevelWarp}, lane32[0]},
				Locals: []Axis{{"v", 4}}, Tile: []Axis{{"m", 16}, {"n", 8}},
				Ownership: []string{"lane / 4 + 8 * (v / 2)", "lane % 4 * 2 + v % 2"}},
			want: []string{"owned twice: element (m=0, n=0) is owned by warp=0 lane=0 v=0 and by warp=1 lane=0 v=0"},
		},
		{
			name: "a replicated axis that splits the tile",
			spec: Spec{Name: "c2", Executors: []ExecutorAxis{{Name: "warp", Size: 2, Level: LevelWarp, Replicated: true}, lane32[0]},
				Locals: []Axis{{"v", 4}}, Tile: []Axis{{"m", 32}, {"n", 8}},
				Ownership: []string{"16 * warp + lane / 4 + 8 * (v / 2)", "lane % 4 * 2 + v % 2"}},
			want: []string{"not owned: element (m=16, n=0) is owned by no executor with warp=0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.spec)
			var ve *ValidityError
			if !errors.As(err, &ve) {
				t.Fatalf("New: %v, want a *ValidityError", err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Kind.String()+": "+p.Message)
			}
			for _, w := range tc.want {
				found := false
				for _, g := range got {
					found = found || g == w
				}
				if !found {
					t.Errorf("missing problem %q; have:\n\t%s", w, strings.Join(got[:min(len(got), 6)], "\n\t"))
				}
			}
			if !strings.HasPrefix(err.Error(), `distribution "`+tc.spec.Name+`" is invalid:`) {
				t.Errorf("Error() = %q", err)
			}
		})
	}
}

// A problem's evidence fields locate it without parsing the message.
func TestValidityEvidence(t *testing.T) {
	_, err := New(cSpec("lane / 4 + 8 * (v / 2)", "lane % 4 * 2"))
	var ve *ValidityError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	twice, unowned := 0, 0
	for _, p := range ve.Problems {
		switch p.Kind {
		case OwnedTwice:
			twice++
			if p.Tile[1]%2 != 0 {
				t.Errorf("owned twice at odd column %v", p.Tile)
			}
		case NotOwned:
			unowned++
			if p.Tile[1]%2 != 1 || p.Point != -1 {
				t.Errorf("not owned at %v point %d", p.Tile, p.Point)
			}
		}
	}
	// 64 even-column elements are each claimed a second time; 64 odd ones never.
	if twice != 64 || unowned != 64 {
		t.Errorf("%d owned twice, %d not owned; want 64 and 64", twice, unowned)
	}
}

func TestMalformedSpecs(t *testing.T) {
	good := cSpec("lane / 4 + 8 * (v / 2)", "lane % 4 * 2 + v % 2")
	tests := []struct {
		name   string
		edit   func(s *Spec)
		substr string
	}{
		{"unknown axis", func(s *Spec) { s.Ownership[0] = "lane / 4 + 8 * (w / 2)" }, `ownership: indexmap: result m:`},
		{"syntax", func(s *Spec) { s.Ownership[1] = "lane % 4 * " }, `ownership of n "lane % 4 * ": indexmap: offset`},
		{"too few expressions", func(s *Spec) { s.Ownership = s.Ownership[:1] }, "1 ownership expressions for 2 tile axes (m:16, n:8)"},
		{"duplicate axis", func(s *Spec) { s.Locals = []Axis{{"lane", 4}} }, `axis name "lane" used twice (executor and local)`},
		{"levels out of order", func(s *Spec) {
			s.Executors = []ExecutorAxis{lane32[0], {Name: "warp", Size: 2, Level: LevelWarp}}
		}, `executor axis "warp" (warp) comes after a lane axis`},
		{"zero size", func(s *Spec) { s.Locals = []Axis{{"v", 0}} }, `local axis "v": size 0 is not positive`},
		{"no level", func(s *Spec) { s.Executors = []ExecutorAxis{{Name: "lane", Size: 32}} }, `executor axis "lane" has no level`},
		{"storage syntax", func(s *Spec) { s.Storage = "v +" }, `storage "v +"`},
		{"huge", func(s *Spec) { s.Locals = []Axis{{"v", 1 << 30}} }, "more than"},
		{"no tile", func(s *Spec) { s.Tile = nil; s.Ownership = nil }, "the tile has no axes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := cloneSpec(good)
			tc.edit(&s)
			_, err := New(s)
			if err == nil || !strings.Contains(err.Error(), tc.substr) {
				t.Errorf("New: %v, want an error containing %q", err, tc.substr)
			}
		})
	}
	if _, err := New(good); err != nil {
		t.Errorf("the unedited spec: %v", err)
	}
}
