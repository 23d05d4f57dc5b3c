package conversion

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/costmodel"
)

func TestClassOrderAndNames(t *testing.T) {
	want := []string{"identity", "register_permute", "warp_shuffle", "shared_memory", "cluster_shared_memory", "global_memory"}
	cs := Classes()
	if len(cs) != len(want) {
		t.Fatalf("%d classes, want %d", len(cs), len(want))
	}
	for i, c := range cs {
		if c.String() != want[i] || int(c) != i {
			t.Errorf("class %d is %v, want %s", i, c, want[i])
		}
		back, err := ParseClass(c.String())
		if err != nil || back != c {
			t.Errorf("ParseClass(%q) = %v, %v", c, back, err)
		}
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var u Class
		if err := json.Unmarshal(data, &u); err != nil || u != c {
			t.Errorf("%s does not round-trip through JSON: %v %v", data, u, err)
		}
		if i > 0 && !(cs[i-1] < c) {
			t.Errorf("%v is not above %v", c, cs[i-1])
		}
	}
	if _, err := Class(200).MarshalText(); err == nil {
		t.Error("Class(200) marshals")
	}
	if Class(200).String() != "Class(200)" {
		t.Errorf("Class(200) prints as %q", Class(200))
	}
	if _, err := ParseClass("shared"); err == nil {
		t.Error(`ParseClass("shared") did not fail`)
	}
	if (Mechanism{Via: ClusterSharedMemory, Variant: "pull"}).String() != "cluster_shared_memory/pull" {
		t.Error("mechanism text")
	}
}

func FuzzParseClass(f *testing.F) {
	for _, s := range []string{"identity", "warp_shuffle", "global_memory", "", "Identity", "shared"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseClass(s)
		if err != nil {
			return
		}
		if c.String() != s {
			t.Fatalf("ParseClass(%q) = %v, which prints as %q", s, c, c.String())
		}
	})
}

// Distributions written differently have one key; renamings and element
// types tell keys apart.
func TestKeyOf(t *testing.T) {
	ld, a := builtin(t, "ldmatrix.x4"), builtin(t, "mma.m16n8k16.a.f16")
	r := rename(t, "row=m,col=k")
	if KeyOf(ld, a, r) != KeyOf(ld.WithName("x"), a, rename(t, "col=k,row=m")) {
		t.Error("the name or the order of the renaming changed the key")
	}
	if KeyOf(ld, a, r) == KeyOf(ld, builtin(t, "mma.m16n8k16.a.bf16"), r) {
		t.Error("f16 and bf16 destinations share a key")
	}
}

// A measurement table of one target does not cost another's conversions:
// Classify refuses it, naming both, rather than report another GPU's
// measurement as this one's.
func TestClassifyMeasuredOnAnotherTarget(t *testing.T) {
	ld, a := builtin(t, "ldmatrix.x4"), builtin(t, "mma.m16n8k16.a.f16")
	opts := Options{Rename: rename(t, "row=m,col=k"),
		Measured: &costmodel.Measurements{Target: "sm80", Sizes: []costmodel.SizeMeasurement{{Mechanism: "identity", Bytes: 512, CostNS: 7}}}}
	if _, err := Classify(ld, a, opts); err == nil || !strings.Contains(err.Error(), `measured on "sm80", not on "h200"`) {
		t.Errorf("sm80's table on h200: error %v", err)
	}
	sm80, err := costmodel.BuiltinTarget("sm80")
	if err != nil {
		t.Fatal(err)
	}
	opts.Target = sm80
	res, err := Classify(ld, a, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cost.Origin != costmodel.Measured || res.Cost.NS != 7 {
		t.Errorf("sm80's table on sm80: %+v", res.Cost)
	}
}
