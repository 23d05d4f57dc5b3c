#!/usr/bin/env bash
# setup-highs.sh — make HiGHS available to cklplan, and say where it is.
#
# cklplan loads HiGHS (libhighs.so) at run time; see internal/highs/doc.go for
# the whole discovery order. This script makes sure the project's own step of
# that order succeeds:
#
#   1. If CKL_HIGHS_LIBRARY names a file, or $HiGHS_HOME/lib/libhighs.so exists,
#      that library is the user's choice: nothing is installed.
#   2. Otherwise the highsbox wheel (HiGHS $HIGHSBOX_VERSION) is installed from PyPI
#      into .highs/highsbox-$HIGHSBOX_VERSION/ at the module root with
#      `python3 -m pip install --target`, and the library's path, relative to
#      .highs/, is recorded in .highs/libhighs.path.
#
# Idempotent: when the recorded library exists the script only prints its path.
# Run it from anywhere inside the repository (the Makefile does: make setup).
set -euo pipefail

HIGHSBOX_VERSION=1.15.1

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir="$root/.highs"
record="$dir/libhighs.path"
target="highsbox-$HIGHSBOX_VERSION"
rel="$target/highsbox/highs_dist/lib/libhighs.so"

say() { printf 'setup-highs: %s\n' "$*" >&2; }

if [[ -n "${CKL_HIGHS_LIBRARY:-}" ]]; then
	if [[ -f "$CKL_HIGHS_LIBRARY" ]]; then
		# A shared library starts with ELF's magic number; cklplan doctor
		# checks the rest (its HiGHS version and a MILP).
		if [[ "$(head -c 4 "$CKL_HIGHS_LIBRARY" | od -An -c | tr -d ' ')" != '177ELF' ]]; then
			say "CKL_HIGHS_LIBRARY=$CKL_HIGHS_LIBRARY is not a shared library; unset it or point it at libhighs.so"
			exit 1
		fi
		say "using CKL_HIGHS_LIBRARY=$CKL_HIGHS_LIBRARY (nothing installed; cklplan doctor checks it)"
		exit 0
	fi
	say "CKL_HIGHS_LIBRARY=$CKL_HIGHS_LIBRARY is not a file; unset it or point it at libhighs.so"
	exit 1
fi
if [[ -n "${HiGHS_HOME:-}" && -f "$HiGHS_HOME/lib/libhighs.so" ]]; then
	say "using HiGHS_HOME=$HiGHS_HOME (nothing installed)"
	exit 0
fi

if [[ -f "$record" && -f "$dir/$(cat "$record")" ]]; then
	say "HiGHS $HIGHSBOX_VERSION already installed: $dir/$(cat "$record")"
	exit 0
fi

hint="or set CKL_HIGHS_LIBRARY to a libhighs.so of HiGHS 1.10 or newer (1.15.x is what cklplan tests)"
if ! command -v python3 >/dev/null 2>&1; then
	say "python3 is needed to install the highsbox wheel: install python3 with pip, $hint"
	exit 1
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
	say "python3 has no pip (python3 -m pip fails): install pip (e.g. python3-pip), $hint"
	exit 1
fi

say "installing highsbox==$HIGHSBOX_VERSION from PyPI into $dir/$target"
mkdir -p "$dir"
rm -rf "${dir:?}/$target.tmp"
if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps \
	--target "$dir/$target.tmp" "highsbox==$HIGHSBOX_VERSION"; then
	rm -rf "${dir:?}/$target.tmp"
	say "pip could not install highsbox==$HIGHSBOX_VERSION (is PyPI reachable?): retry, $hint"
	exit 1
fi
rm -rf "${dir:?}/$target"
mv "$dir/$target.tmp" "$dir/$target"
if [[ ! -f "$dir/$rel" ]]; then
	say "the highsbox wheel has no $rel; cannot continue"
	exit 1
fi
printf '%s\n' "$rel" >"$record.tmp"
mv "$record.tmp" "$record"
say "HiGHS $HIGHSBOX_VERSION installed: $dir/$rel"
