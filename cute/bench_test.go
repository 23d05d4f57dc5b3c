package cute

import "testing"

func BenchmarkRecognize(b *testing.B) {
	for _, bm := range []struct{ name, layout string }{
		{"n=12", "((2,2),3):((24,2),8)"},
		{"n=4096", "(8,4,8,16):(1,64,8,256)"},
		{"n=2^20", "(32,32,1024):(1024,1,32768)"},
	} {
		values := MustParse(bm.layout).Table()
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				if _, ok := Recognize(values); !ok {
					b.Fatal("not recognized")
				}
			}
		})
	}
	notLayout := MustParse("(32,32,1024):(1024,1,32768)").Table()
	notLayout[len(notLayout)/2+1]++
	b.Run("n=2^20/reject-late", func(b *testing.B) {
		for b.Loop() {
			if _, ok := Recognize(notLayout); ok {
				b.Fatal("recognized")
			}
		}
	})
}

func BenchmarkComposition(b *testing.B) {
	for _, bm := range []struct{ name, a, b string }{
		{"doc/size=12", "(6,2):(8,2)", "(4,3):(3,1)"},
		{"checked/size=4096", "(64,64):(64,1)", "(16,(4,64)):(4,(1,64))"},
		{"checked/size=2^20", "(1024,1024):(1024,1)", "(256,(4,1024)):(4,(1,1024))"},
		{"unchecked/size=2^24", "(4096,4096):(4096,1)", "(1024,(4,4096)):(4,(1,4096))"},
		{"recognized/size=4096", "(63,65):(1,63)", "(63,65):(65,1)"},
		{"not-a-layout/size=4096", "(3,1366):(1,4)", "4096:1"},
	} {
		x, y := MustParse(bm.a), MustParse(bm.b)
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				Composition(x, y)
			}
		})
	}
}

func BenchmarkComplement(b *testing.B) {
	a := MustParse("(2,4,8):(1,32,1024)")
	for b.Loop() {
		if _, err := ComplementTo(a, 1<<16); err != nil {
			b.Fatal(err)
		}
	}
}
