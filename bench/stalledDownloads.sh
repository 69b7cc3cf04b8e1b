#!/bin/bash
# usage: bench/stalledDownloads.sh BUILD_DIR DATA_DIR PORT N HOLD_S [ENV=value...]: memory before, while N clients
# stall on the audit export, and after (bench/README.md, "Stalled downloads"). Uses the try39 tester's
# noread.mjs and mem.sh, and /tmp/try39/envab.sh for the campaign ($C) and its key ($KEY).
set -u
B=$1; D=$2; PORT=$3; N=$4; HOLD=$5; shift 5
source /tmp/try39/envab.sh
cd $B
env "$@" PORT=$PORT DATA_DIR=$D TRUST_PROXY=loopback LOG_LEVEL=warn node dist/adsvc.js serve > /tmp/stall39/server-$PORT.log 2>&1 &
P=$!
for i in $(seq 1 60); do curl -s -o /dev/null localhost:$PORT/healthz && break; sleep 1; done
sleep 5
echo "before:   $(/work/wt/try39-shots/mem.sh $P $PORT)"
node /work/wt/try39-shots/noread.mjs 127.0.0.1 $PORT $N "/v1/advertiser/reporting/events?campaign_id=$C&date_from=2026-11-24&date_to=2026-11-25" '{"x-api-key":"'$KEY'","accept":"text/csv"}' $HOLD > /tmp/stall39/noread-$PORT.log 2>&1 &
NR=$!
for t in 15 30 45 60 90 120 150 180; do
  [ $t -ge $HOLD ] && break
  sleep 15; [ $t -gt 60 ] && sleep 15
  echo "+${t}s:    $(/work/wt/try39-shots/mem.sh $P $PORT) sendq_MB=$(ss -tnH state established "( sport = :$PORT )" | awk '{s+=$2} END {printf "%d", s/1048576}') conns=$(ss -tnH state established "( sport = :$PORT )" | wc -l)"
done
wait $NR
sleep 12
echo "closed+12s: $(/work/wt/try39-shots/mem.sh $P $PORT)"
grep -c "stopped reading" /tmp/stall39/server-$PORT.log | sed 's/^/stall warnings: /'
grep -m1 "stopped reading" /tmp/stall39/server-$PORT.log | cut -c1-400
kill $P; wait $P
