// Package errcontract holds no code: its test checks the module's error
// contract across packages. When a package passes on an error that another
// package made, it wraps it: the message keeps the other package's text
// unedited, and errors.As still finds the other package's error type. The
// test has one case for every pair of packages where this happens.
package errcontract
