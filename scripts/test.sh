#!/usr/bin/env bash
# test.sh — the whole test suite, as `make test` (and CI, through .ci/run) runs it.
#
# Every step runs even after one fails; the script then lists the failed steps
# and exits 1. CKL_REQUIRE_HIGHS=1 makes every test that solves demand the
# pinned HiGHS (1.15.x): a missing or different HiGHS is a test failure, never
# a skip.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export CKL_REQUIRE_HIGHS=1
GO=${GO:-go}
# The packages that run solves, tested again under the race detector.
SOLVING=(./internal/highs/... ./planner/...)

failed=()
step() {
	local name=$1
	shift
	printf '\n=== %s\n' "$name"
	if "$@"; then
		printf -- '--- ok: %s\n' "$name"
	else
		printf -- '--- FAILED: %s\n' "$name"
		failed+=("$name")
	fi
}

gofmt_check() {
	local files
	# Every Go file outside testdata/ (where the go tool looks neither) and the
	# HiGHS install.
	files=$(find . \( -name testdata -o -name .highs -o -name .git \) -prune -o -name '*.go' -print0 |
		xargs -0 gofmt -l) || return 1
	if [[ -n $files ]]; then
		echo "gofmt: these files are not formatted (run gofmt -w on them):"
		echo "$files"
		return 1
	fi
}

step "gofmt -l" gofmt_check
step "go vet ./..." "$GO" vet ./...
step "go tool staticcheck ./..." "$GO" tool staticcheck ./...
step "CGO_ENABLED=0 go build ./..." env CGO_ENABLED=0 "$GO" build ./...
# The planner's tests take minutes, several times that under the race
# detector: past go test's default of 10 minutes a test binary on a slow
# machine (or one shared with other jobs) would be killed, so the limit is
# CI's own budget, 90 minutes in all, shared between the two.
step "go test ./..." "$GO" test -timeout 30m ./...
step "go test -race ${SOLVING[*]}" "$GO" test -timeout 50m -race "${SOLVING[@]}"

echo
if ((${#failed[@]})); then
	echo "FAILED steps:"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "all steps passed"
