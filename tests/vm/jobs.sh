#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2
#
# Jobs through rwctl: create, show (text and JSON), refuse bad or
# duplicate ones with a clear message, refuse unprivileged users, delete.
. "$(dirname "$0")/lib.sh"

t_ok "load ib_core and rackweave.ko" rw_load

out=$("$RWCTL" -j job add train1 workers 4 sync ssp 3 optim momentum lr 0.05)
t_eq "job add: JSON reply names the job" train1 "$(echo "$out" | jpy 'd["jobs"][0]["name"]')"
t_eq "job add: the generated token is shown once, 64 hex digits" 64 \
	"$(echo "$out" | jpy 'len(d["jobs"][0]["token"])')"
t_eq "job add: settings as asked" '[4, "ssp", 3, "momentum"]' \
	"$(echo "$out" | jpy '[d["jobs"][0][k] for k in ("workers", "sync", "staleness", "optim")]')"

head -c 32 /dev/urandom >"$RW_OUT/token"
t_ok "job add with a token file and the adaptive band" \
	"$RWCTL" job add train2 workers 2 sync adaptive 3 15 chunk-size 65536 token-file "$RW_OUT/token"

all=$("$RWCTL" -j job show)
t_eq "job show -j: both jobs, valid JSON" '["train1", "train2"]' \
	"$(echo "$all" | jpy 'sorted(j["name"] for j in d["jobs"])')"
t_eq "job show -j: no token is ever listed" false \
	"$(echo "$all" | jpy 'any("token" in j for j in d["jobs"])')"
t_eq "job show NAME: the adaptive band" '[3, 15, 65536]' \
	"$("$RWCTL" -j job show train2 | jpy '[d["jobs"][0][k] for k in ("staleness_lo", "staleness_hi", "chunk_size")]')"
t_ok "job show: text names both jobs" \
	sh -c "'$RWCTL' job show | grep -q train1 && '$RWCTL' job show | grep -q train2"

msg=$("$RWCTL" job add train1 workers 4 2>&1)
t_eq "duplicate name: exit 1" 1 "$?"
t_ok "duplicate name: the message says so" sh -c "echo '$msg' | grep -q 'already exists'"
"$RWCTL" job add bad workers 0 >/dev/null 2>&1
t_eq "workers 0: usage error, exit 2" 2 "$?"
"$RWCTL" job add 'no/slash' workers 1 >/dev/null 2>&1
t_eq "bad name: usage error, exit 2" 2 "$?"
msg=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$RWCTL" job add x workers 1 2>&1)
t_eq "unprivileged job add: exit 1" 1 "$?"
t_ok "unprivileged job add: says it needs CAP_NET_ADMIN" sh -c "echo '$msg' | grep -q CAP_NET_ADMIN"
t_ok "unprivileged job show works" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$RWCTL" job show
t_eq "refusals created nothing" 2 "$("$RWCTL" -j job show | jpy 'len(d["jobs"])')"

# Policy: changed between runs, shown by policy show and job show.
t_ok "policy set: train2 to SSP 4 with lr 0.25" "$RWCTL" policy set train2 sync ssp 4 lr 0.25
t_eq "policy show -j: the new settings" '["ssp", 4, 0.25]' \
	"$("$RWCTL" -j policy show train2 | jpy '[d["jobs"][0][k] for k in ("sync", "staleness", "lr")]')"
t_eq "policy set kept what it was not given" '[2, 65536]' \
	"$("$RWCTL" -j job show train2 | jpy '[d["jobs"][0][k] for k in ("workers", "chunk_size")]')"
"$RWCTL" policy set train2 sync adaptive 9 3 >/dev/null 2>&1
t_eq "policy set with an inverted band: usage error" 2 "$?"
msg=$("$RWCTL" policy set nosuch lr 0.1 2>&1)
t_eq "policy set of an unknown job: exit 1" 1 "$?"
t_ok "policy set of an unknown job: says so" sh -c "echo '$msg' | grep -qi 'no job'"
setpriv --reuid=65534 --regid=65534 --clear-groups "$RWCTL" policy set train2 lr 0.5 >/dev/null 2>&1
t_eq "unprivileged policy set: exit 1" 1 "$?"
t_eq "refused policy changes changed nothing" '["ssp", 4, 0.25]' \
	"$("$RWCTL" -j policy show train2 | jpy '[d["jobs"][0][k] for k in ("sync", "staleness", "lr")]')"
t_eq "topo show -j before any run: valid JSON, no layout" '[false, 0]' \
	"$("$RWCTL" -j topo show train2 | jpy '[d["declared"], len(d["chunk_map"])]')"
t_eq "stats show -j before any run: 2 ranks, none attached" '[2, 0]' \
	"$("$RWCTL" -j stats show train2 | jpy '[len(d["workers"]), sum(w["attached"] for w in d["workers"])]')"

# Events: an admin's monitor sees jobs come and go; others may not listen.
mon_start "$RW_OUT/events"
t_eq "monitor: listening" 0 "$?"
"$RWCTL" job add evjob workers 1 >/dev/null
"$RWCTL" job del evjob
t_ok "monitor: hears the job go" mon_until "$RW_OUT/events" '"job-del".*"evjob"'
mon_stop
t_eq "monitor -j: job-new then job-del of evjob" '[["job-new", "evjob"], ["job-del", "evjob"]]' \
	"$(mon_events "$RW_OUT/events" '[e["event"], e["job"]]')"
"$RWCTL" -j monitor count 1 timeout 1 >/dev/null
t_eq "monitor with a timeout and no event: exit 0" 0 "$?"
msg=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$RWCTL" monitor count 1 timeout 2 2>&1)
t_eq "unprivileged monitor: exit 1" 1 "$?"
t_ok "unprivileged monitor: says it needs CAP_NET_ADMIN" sh -c "echo '$msg' | grep -q CAP_NET_ADMIN"

t_ok "job del train1" "$RWCTL" job del train1
"$RWCTL" job del train1 >/dev/null 2>&1
t_eq "job del of a deleted job: exit 1" 1 "$?"
t_eq "one job left" '["train2"]' "$("$RWCTL" -j job show | jpy '[j["name"] for j in d["jobs"]]')"
t_ok "rmmod with a job defined frees it" rmmod rackweave
t_done
