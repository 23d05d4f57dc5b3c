# The README's two commands: `make run` and `make test`.
#
#   make run    set up (HiGHS and Go modules), then run cklplan's main job
#   make test   set up, then the whole test suite (scripts/test.sh; CI runs it via .ci/run)
#   make setup  only the set-up: HiGHS (scripts/setup-highs.sh) and `go mod download`

GO ?= go

.PHONY: run test setup

setup:
	scripts/setup-highs.sh
	$(GO) mod download

# The main job: plan the bundled dequantize -> mma example at the decode size
# (N = 16), with the part costs measured on an H200 (docs/hardware.md), and
# print the report.
run: setup
	$(GO) run ./cmd/cklplan plan examples/graphs/dequant_mma_n16.json --costs examples/measured/dequant_mma_n16.json

test: setup
	scripts/test.sh
