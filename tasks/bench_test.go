package tasks

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkLoadExamples(b *testing.B) {
	for _, f := range exampleFiles(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(f), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Load(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
