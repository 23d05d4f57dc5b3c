// Package cute implements CuTe's shape:stride layout algebra, checked.
//
// Layouts are written in CuTe's notation, fastest mode first. Every operation
// either returns CuTe's result where CuTe's conditions hold or an error that
// names the failed condition; it never returns a wrong layout.
package cute
