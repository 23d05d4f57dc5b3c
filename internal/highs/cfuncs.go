package highs

import (
	"fmt"

	"github.com/ebitengine/purego"
)

// highsInt is the Go type of the C API's HighsInt. The highsbox wheel and the
// default HiGHS build use 32-bit HighsInt (HIGHSINT64 undefined in HConfig.h);
// Load checks Highs_getSizeofHighsInt against its size and refuses a library
// built otherwise.
type highsInt = int32

const sizeofHighsInt = 4

// Constants of highs_c_api.h (HiGHS 1.15).
const (
	cStatusError = -1 // kHighsStatusError

	cVarTypeContinuous = 0 // kHighsVarTypeContinuous
	cVarTypeInteger    = 1 // kHighsVarTypeInteger

	cObjSenseMinimize = 1  // kHighsObjSenseMinimize
	cObjSenseMaximize = -1 // kHighsObjSenseMaximize

	cMatrixFormatRowwise = 2 // kHighsMatrixFormatRowwise

	cSolutionStatusFeasible = 2 // kHighsSolutionStatusFeasible

	cMaximumStringLength = 512 // kHighsMaximumStringLength

	cCallbackSimplexInterrupt = 1 // kHighsCallbackSimplexInterrupt
	cCallbackIpmInterrupt     = 2 // kHighsCallbackIpmInterrupt
	cCallbackMipInterrupt     = 6 // kHighsCallbackMipInterrupt
)

// HiGHS model statuses (kHighsModelStatus*).
const (
	cModelStatusNotset                = 0
	cModelStatusLoadError             = 1
	cModelStatusModelError            = 2
	cModelStatusPresolveError         = 3
	cModelStatusSolveError            = 4
	cModelStatusPostsolveError        = 5
	cModelStatusModelEmpty            = 6
	cModelStatusOptimal               = 7
	cModelStatusInfeasible            = 8
	cModelStatusUnboundedOrInfeasible = 9
	cModelStatusUnbounded             = 10
	cModelStatusObjectiveBound        = 11
	cModelStatusObjectiveTarget       = 12
	cModelStatusTimeLimit             = 13
	cModelStatusIterationLimit        = 14
	cModelStatusUnknown               = 15
	cModelStatusSolutionLimit         = 16
	cModelStatusInterrupt             = 17
	cModelStatusCount                 = 18
)

// cfuncs holds the C functions of one loaded libhighs. Every pointer argument
// points to Go memory that HiGHS reads or writes only during the call, which
// the cgo pointer rules (that purego follows) allow.
type cfuncs struct {
	versionMajor func() highsInt
	versionMinor func() highsInt
	versionPatch func() highsInt
	version      func() string

	create            func() uintptr
	destroy           func(h uintptr)
	getSizeofHighsInt func(h uintptr) highsInt
	getInfinity       func(h uintptr) float64

	resetOptions         func(h uintptr) highsInt
	setBoolOptionValue   func(h uintptr, name string, v highsInt) highsInt
	setIntOptionValue    func(h uintptr, name string, v highsInt) highsInt
	setDoubleOptionValue func(h uintptr, name string, v float64) highsInt
	setStringOptionValue func(h uintptr, name string, v string) highsInt

	getBoolOptionValue   func(h uintptr, name string, v *highsInt) highsInt
	getIntOptionValue    func(h uintptr, name string, v *highsInt) highsInt
	getDoubleOptionValue func(h uintptr, name string, v *float64) highsInt
	getStringOptionValue func(h uintptr, name string, v *byte) highsInt

	clearModel func(h uintptr) highsInt
	passMip    func(h uintptr, numCol, numRow, numNz, aFormat, sense highsInt, offset float64,
		colCost, colLower, colUpper, rowLower, rowUpper *float64,
		aStart, aIndex *highsInt, aValue *float64, integrality *highsInt) highsInt
	run func(h uintptr) highsInt

	getModelStatus     func(h uintptr) highsInt
	getObjectiveValue  func(h uintptr) float64
	getRunTime         func(h uintptr) float64
	getSolution        func(h uintptr, colValue, colDual, rowValue, rowDual *float64) highsInt
	setSolution        func(h uintptr, colValue, rowValue, colDual, rowDual *float64) highsInt
	getIntInfoValue    func(h uintptr, name string, v *highsInt) highsInt
	getInt64InfoValue  func(h uintptr, name string, v *int64) highsInt
	getDoubleInfoValue func(h uintptr, name string, v *float64) highsInt
	setCallback        func(h uintptr, cb uintptr, userData uintptr) highsInt
	startCallback      func(h uintptr, callbackType highsInt) highsInt
	zeroAllClocks      func(h uintptr) highsInt
	changeColBounds    func(h uintptr, col highsInt, lower, upper float64) highsInt
	getBasis           func(h uintptr, colStatus, rowStatus *highsInt) highsInt
	setBasis           func(h uintptr, colStatus, rowStatus *highsInt) highsInt
	clearSolver        func(h uintptr) highsInt
	getIis             func(h uintptr, numCol, numRow, colIndex, rowIndex, colBound, rowBound, colStatus, rowStatus *highsInt) highsInt
	// resetGlobalScheduler shuts down the task scheduler of the calling
	// thread (HiGHS keeps one per thread, sized by the first run's threads).
	resetGlobalScheduler func(blocking highsInt)
}

type symbol struct {
	name string
	fptr any
}

// versionSymbols are the functions that say which HiGHS a library is; they
// exist in every HiGHS with a C API.
func (f *cfuncs) versionSymbols() []symbol {
	return []symbol{
		{"Highs_versionMajor", &f.versionMajor},
		{"Highs_versionMinor", &f.versionMinor},
		{"Highs_versionPatch", &f.versionPatch},
		{"Highs_version", &f.version},
	}
}

// solverSymbols are the rest of the functions the binding calls.
func (f *cfuncs) solverSymbols() []symbol {
	return []symbol{
		{"Highs_create", &f.create},
		{"Highs_destroy", &f.destroy},
		{"Highs_getSizeofHighsInt", &f.getSizeofHighsInt},
		{"Highs_getInfinity", &f.getInfinity},
		{"Highs_resetOptions", &f.resetOptions},
		{"Highs_setBoolOptionValue", &f.setBoolOptionValue},
		{"Highs_setIntOptionValue", &f.setIntOptionValue},
		{"Highs_setDoubleOptionValue", &f.setDoubleOptionValue},
		{"Highs_setStringOptionValue", &f.setStringOptionValue},
		{"Highs_getBoolOptionValue", &f.getBoolOptionValue},
		{"Highs_getIntOptionValue", &f.getIntOptionValue},
		{"Highs_getDoubleOptionValue", &f.getDoubleOptionValue},
		{"Highs_getStringOptionValue", &f.getStringOptionValue},
		{"Highs_clearModel", &f.clearModel},
		{"Highs_passMip", &f.passMip},
		{"Highs_run", &f.run},
		{"Highs_getModelStatus", &f.getModelStatus},
		{"Highs_getObjectiveValue", &f.getObjectiveValue},
		{"Highs_getRunTime", &f.getRunTime},
		{"Highs_getSolution", &f.getSolution},
		{"Highs_setSolution", &f.setSolution},
		{"Highs_getIntInfoValue", &f.getIntInfoValue},
		{"Highs_getInt64InfoValue", &f.getInt64InfoValue},
		{"Highs_getDoubleInfoValue", &f.getDoubleInfoValue},
		{"Highs_setCallback", &f.setCallback},
		{"Highs_startCallback", &f.startCallback},
		{"Highs_zeroAllClocks", &f.zeroAllClocks},
		{"Highs_resetGlobalScheduler", &f.resetGlobalScheduler},
		{"Highs_changeColBounds", &f.changeColBounds},
		{"Highs_getBasis", &f.getBasis},
		{"Highs_setBasis", &f.setBasis},
		{"Highs_clearSolver", &f.clearSolver},
	}
}

// iisSymbols are the functions of Solver.Conflict, bound only for HiGHS 1.15
// or newer (see iisVersion).
func (f *cfuncs) iisSymbols() []symbol {
	return []symbol{{"Highs_getIis", &f.getIis}}
}

// bind resolves symbols of the library. A missing symbol is an error naming
// it, never a panic.
func bind(handle uintptr, syms []symbol) error {
	for _, s := range syms {
		addr, err := purego.Dlsym(handle, s.name)
		if err != nil || addr == 0 {
			return fmt.Errorf("not a usable HiGHS library: symbol %s not found", s.name)
		}
		purego.RegisterFunc(s.fptr, addr)
	}
	return nil
}
