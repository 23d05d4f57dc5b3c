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

run: setup
	$(GO) run ./cmd/cklplan doctor

test: setup
	scripts/test.sh
