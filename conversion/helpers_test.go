package conversion

import (
	"testing"

	"github.com/cklplan/cklplan/costmodel"
)

func target(t testing.TB, name string) *costmodel.Target {
	t.Helper()
	tg, err := costmodel.BuiltinTarget(name)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}
