#!/usr/bin/env bash
# Cold builds of a copy of this site with one block slot per CPU core, then with the default (two
# per core), side by side; prints each build's own summary line. Run from the repository root after
# `make install`:  bash benchmarks/slots_per_core.sh
set -euo pipefail
root=$(pwd)
cores=$(nproc)
work=$(mktemp -d /tmp/slots-per-core-XXXXXX)
trap 'rm -rf "$work"' EXIT
git ls-files -z | xargs -0 -I{} cp --parents {} "$work/"
cp -r docs/javascripts/vendor "$work/docs/javascripts/"
echo "commit $(git rev-parse --short HEAD), $cores cores, $(date -u +%F)"
for jobs in "$cores" ""; do
  rm -rf "$work/.cache" "$work/site"
  label=${jobs:+DPGUIDE_JOBS=$jobs (one slot per core)}
  (cd "$work" && env ${jobs:+DPGUIDE_JOBS=$jobs} NO_MKDOCS_2_WARNING=1 "$root/.venv/bin/mkdocs" build --strict \
      --site-dir "$work/site" 2>&1) | grep -o '\[dpguide\] ran [0-9]* block(s) in [0-9.]*s' \
      | sed "s/^/${label:-default (two slots per core)}: /"
done
