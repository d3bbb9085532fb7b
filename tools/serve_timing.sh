#!/bin/bash
# Usage: bash tools/serve_timing.sh (from anywhere; it clones this repository, or $REPO).
# make serve from a fresh clone: time until /learn/ddp/ is served with rank tabs, cold then warm
set -u
rm -rf /tmp/serve-clone && git clone -q "${REPO:-$(git -C "$(dirname "$0")" rev-parse --show-toplevel)}" /tmp/serve-clone && cd /tmp/serve-clone || exit 1
echo "fresh clone at $(git rev-parse --short HEAD): .venv present? $(test -e .venv && echo yes || echo no);" \
     "vendored mermaid present? $(test -e docs/javascripts/vendor/mermaid.min.js && echo yes || echo no)"
for round in cold warm; do
  start=$(date +%s.%N)
  setsid make serve > /tmp/serve-$round.log 2>&1 < /dev/null &
  pid=$!
  ok=no
  while kill -0 $pid 2>/dev/null; do
    if curl -sf http://127.0.0.1:8000/learn/ddp/ -o /tmp/serve-$round.html && grep -q 'tabbed-set' /tmp/serve-$round.html \
       && grep -q '>rank 1<' /tmp/serve-$round.html; then ok=yes; break; fi
    sleep 0.5; [ $(( $(date +%s) - ${start%.*} )) -gt 1500 ] && break
  done
  end=$(date +%s.%N)
  echo "$round: page with rank tabs served: $ok after $(python3 -c "print(round($end-$start,1))") s"
  kill -TERM -- -$pid 2>/dev/null; sleep 2; kill -KILL -- -$pid 2>/dev/null; wait $pid 2>/dev/null
done
grep -o '<label[^>]*>rank [0-9][^<]*</label>' /tmp/serve-warm.html | head -4
