// Package highstest loads HiGHS for tests of the packages that solve.
//
// No test skips for want of HiGHS: Library fails the test, with the search
// steps and the install command. With CKL_REQUIRE_HIGHS=1 (set by the project's
// test command, scripts/test.sh) it also fails unless the library is the
// release the project pins (1.15.x), so that CI never passes on a stray system
// HiGHS.
//
// Invariant: a test that calls Library either gets a loaded, checked HiGHS or
// fails; it never skips.
package highstest
