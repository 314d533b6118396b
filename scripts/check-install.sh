#!/usr/bin/env bash
# `cargo install --path crates/flashlab --root <tmp>` from a copy of the source tree without
# .git (as from a tarball), then the installed binary run from another directory with the copy
# deleted: it must need no file of the source tree (profiles and protocols are embedded).
# --version must name this checkout's git revision, handed to the copy's build in
# FLASHLAB_GIT_REVISION as a packager building from a tarball would ("unknown" when this tree
# has no git metadata either; tests/build_revision.rs checks that fallback of the build script).
# Run by .ci/run (issue 19, acceptance 3).
# CARGO_TARGET_DIR defaults to target/install-check, so a second run is incremental; PROFILE
# (default release, what `cargo install` builds) may be set to another cargo profile.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
# The revision the installed binary must name: this checkout's, or none.
rev=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || true)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src" "$tmp/root" "$tmp/elsewhere"
# Everything but build output and git metadata.
tar --exclude=./target --exclude=./.git --exclude=./fuzz/target -cf - . | tar -xf - -C "$tmp/src"
start=$(date +%s)
(
    cd "$tmp/elsewhere"
    FLASHLAB_GIT_REVISION="$rev" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$top/target/install-check}" \
        cargo install --locked --quiet --profile "${PROFILE:-release}" --path "$tmp/src/crates/flashlab" --root "$tmp/root"
)
echo "check-install: cargo install took $(( $(date +%s) - start )) s"
rm -rf "$tmp/src"
bin="$tmp/root/bin/flashlab"
cd "$tmp/elsewhere"
version=$("$bin" --version)
echo "check-install: $version"
case $version in
    "flashlab "*" (git ${rev:-unknown})") ;;
    *) echo "check-install: expected '(git ${rev:-unknown})', got: $version" >&2; exit 1 ;;
esac
# Outputs are captured before grep reads them: `flashlab ... | grep -q` under pipefail fails
# whenever grep exits at its first match before flashlab has written its last line (flashlab
# then dies of SIGPIPE, as Unix tools do), which failed CI once.
listing=$("$bin" profiles)
grep -q '^nexus7-2012 ' <<<"$listing" || { printf '%s\n' "$listing" >&2; echo "check-install: profiles lacks nexus7-2012" >&2; exit 1; }
toy=$("$bin" profiles toy)
grep -q '^name = "toy"' <<<"$toy" || { printf '%s\n' "$toy" >&2; echo "check-install: profiles toy failed" >&2; exit 1; }
"$bin" bench --target sim:toy --seed 1 >bench.txt || { cat bench.txt >&2; exit 1; }
[ -s bench.txt ] || { echo "check-install: bench printed nothing" >&2; exit 1; }
"$bin" completions bash >/dev/null
"$bin" man >/dev/null
echo "check-install: ok (installed binary runs with no source tree)"
