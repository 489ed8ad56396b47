#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2
#
# A job's box set through rwctl and the module: a job created with a set of
# three boxes (this box 2) is shown with it by job show and topo show, text
# and JSON; policy set replaces it (epoch 2, a given epoch, the old + 1);
# bad sets are refused with a clear message and leave the job as it was,
# both those rwctl catches (duplicate id, this box outside the set, a bad
# address, an unknown word) and those only the module sees (raw requests:
# every rule of the set, reply-only and malformed attributes); a job's
# first set waits for its run's end; "boxes none" drops it. (A move of a
# running job's set: tests/cluster/shard.sh.)
. "$(dirname "$0")/lib.sh"

DEV_CHECK=$RW_TOP/build/tests/vm/dev-check
TOKEN=$RW_OUT/boxes.token
SET='1@10.0.0.1,2@10.0.0.2,3@[fd00::3]:7000'
holder=
trap '[ -n "$holder" ] && kill -9 "$holder" 2>/dev/null' EXIT

# set_of JOB: the box set of JOB in `rwctl -j job show JOB` as
# [epoch, self, [[id, addr, port, self], ...]], or null without one.
set_of() {
	"$RWCTL" -j job show "$1" | jpy '(lambda b: b and [b["epoch"], b["self"],
		[[x["id"], x["addr"], x["port"], x["self"]] for x in b["boxes"]]])(d["jobs"][0].get("box_set"))'
}

# raw CASE...: RW_CMD_JOB_NEW or _POLICY_SET requests built by hand, past
# rwctl's own checks, one line per CASE: "CASE ERRNO EXTACK". The numbers
# come from uapi/rackweave.h.
raw() {
	/usr/bin/python3 -I -S - "$RW_TOP/uapi/rackweave.h" "$@" <<'EOF'
import re, socket, struct, sys

hdr = open(sys.argv[1]).read()


def enum(name):
    body = re.search(r"enum %s \{(.*?)\};" % name, hdr, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    vals, n = {}, 0
    for item in (i.strip() for i in body.split(",")):
        if not item:
            continue
        if "=" in item:
            item, v = (s.strip() for s in item.split("="))
            n = int(v, 0)
        vals[item] = n
        n += 1
    return vals


C, J, B = enum("rw_cmd"), enum("rw_job_attr"), enum("rw_box_attr")
NESTED = 0x8000


def attr(t, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, t) + payload + b"\0" * (-n % 4)


def u32(t, v):
    return attr(t, struct.pack("=I", v))


def ip(s):
    return socket.inet_pton(socket.AF_INET6 if ":" in s else socket.AF_INET, s)


def box(i, addr, port=None, extra=b"", flag=NESTED):
    body = u32(B["RW_BOX_A_ID"], i) + attr(B["RW_BOX_A_ADDR"], addr)
    if port is not None:
        body += attr(B["RW_BOX_A_PORT"], struct.pack("=H", port))
    return attr(1 | flag, body + extra)


def boxes(*bs, self=None, epoch=None):
    a = attr(J["RW_JOB_A_BOXES"] | NESTED, b"".join(bs))
    if self is not None:
        a += u32(J["RW_JOB_A_BOX_SELF"], self)
    if epoch is not None:
        a += u32(J["RW_JOB_A_BOX_EPOCH"], epoch)
    return a


sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
sock.setsockopt(270, 11, 1)     # NETLINK_EXT_ACK
sock.setsockopt(270, 10, 1)     # NETLINK_CAP_ACK
sock.bind((0, 0))
seq = 0


def request(family, cmd, attrs):
    """The ack's errno and extended ack message, and the replies."""
    global seq
    seq += 1
    msg = struct.pack("=BBH", cmd, 1, 0) + attrs
    sock.send(struct.pack("=IHHII", 16 + len(msg), family, 5, seq, 0) + msg)
    replies = []
    while True:
        data, off = sock.recv(65536), 0
        while off < len(data):
            n, typ = struct.unpack_from("=IH", data, off)
            body = data[off + 16:off + n]
            off += (n + 3) & ~3
            if typ != 2:
                replies.append(body)
                continue
            err, ext, tlv = -struct.unpack_from("=i", body)[0], "", body[20:]
            while len(tlv) >= 4:
                al, at = struct.unpack_from("=HH", tlv)
                if at == 1:
                    ext = tlv[4:al].rstrip(b"\0").decode()
                tlv = tlv[(al + 3) & ~3:]
            return err, ext, replies


def family():
    _, _, replies = request(0x10, 3, attr(2, b"rackweave\0"))
    a = replies[0][4:]
    while a:
        n, t = struct.unpack_from("=HH", a)
        if t == 1:
            return struct.unpack_from("=H", a, 4)[0]
        a = a[(n + 3) & ~3:]


F = family()
name = lambda s: attr(J["RW_JOB_A_NAME"], s.encode() + b"\0")
a1, a2 = ip("10.0.0.1"), ip("10.0.0.2")
good = box(1, a1) + box(2, a2)
cases = {
    "dup-id": boxes(box(1, a1), box(1, a2), self=1),
    "dup-addr": boxes(box(1, a1, 7000), box(2, a1, 7000), self=1),
    # No port is the default port: the same address as 18515 named.
    "dup-default-port": boxes(box(1, a1), box(2, a1, 18515), self=1),
    "self-out": boxes(good, self=5),
    "no-self": boxes(good),
    "self-alone": u32(J["RW_JOB_A_BOX_SELF"], 1),
    "empty-with-self": boxes(self=1),
    "addr-5": boxes(box(1, a1 + b"\1"), self=1),
    "addr-3": boxes(box(1, a1[:3]), self=1),
    "addr-zero": boxes(box(1, ip("0.0.0.0")), self=1),
    "addr-zero6": boxes(box(1, ip("::")), self=1),
    "no-addr": boxes(attr(1 | NESTED, u32(B["RW_BOX_A_ID"], 1)), self=1),
    "id-0": boxes(box(0, a1), self=1),
    "id-65536": boxes(box(65536, a1), self=65536),
    "port-0": boxes(box(1, a1, 0), self=1),
    "epoch-0": boxes(good, self=1, epoch=0),
    "boxes-65": boxes(*(box(i, ip("10.1.%d.%d" % (i // 200, i % 200 + 1)))
                        for i in range(1, 66)), self=1),
    "reply-only": boxes(box(1, a1, extra=u32(B["RW_BOX_A_CHUNKS"], 1)),
                        self=1),
    "not-nested": boxes(box(1, a1, flag=0), self=1),
    "other-entry": boxes(attr(2 | NESTED, u32(B["RW_BOX_A_ID"], 1)), self=1),
}
for label in sys.argv[2:]:
    cmd, job, case = C["RW_CMD_POLICY_SET"], "shard", label
    if case.startswith("new:"):
        cmd, job, case = C["RW_CMD_JOB_NEW"], "rawjob", case[4:]
    body = name(job) + cases[case]
    if cmd == C["RW_CMD_JOB_NEW"]:
        body += u32(J["RW_JOB_A_WORKERS"], 1)
    err, ext, _ = request(F, cmd, body)
    print(label, err, ext)
EOF
}

t_ok "load ib_core and rackweave.ko" rw_load

# ---- a job with a set, shown ----
out=$("$RWCTL" -j job add shard workers 2 chunk-size 4096 boxes "$SET" self 2)
t_eq "job add with a set: exit 0" 0 "$?"
t_eq "job add -j: the set as given, epoch 1, this box 2" \
	'[1, 2, [[1, "10.0.0.1", 18515, false], [2, "10.0.0.2", 18515, true], [3, "fd00::3", 7000, false]]]' \
	"$(echo "$out" | jpy '(lambda b: [b["epoch"], b["self"], [[x["id"], x["addr"], x["port"], x["self"]] for x in b["boxes"]]])(d["jobs"][0]["box_set"])')"
t_eq "job show -j: the same set" \
	'[1, 2, [[1, "10.0.0.1", 18515, false], [2, "10.0.0.2", 18515, true], [3, "fd00::3", 7000, false]]]' \
	"$(set_of shard)"
t_eq "job show: the set in text" \
"    box set epoch 1, 3 boxes, this box is 2:
        box 1  10.0.0.1:18515
        box 2  10.0.0.2:18515  (this box)
        box 3  [fd00::3]:7000" \
	"$("$RWCTL" job show shard | sed -n '/box set/,$p')"
t_ok "job add without a set" "$RWCTL" job add plain workers 2 chunk-size 4096
t_eq "job show -j (a dump): the set on its job only" '[["plain", false], ["shard", true]]' \
	"$("$RWCTL" -j job show | jpy 'sorted([j["name"], "box_set" in j] for j in d["jobs"])')"
t_eq "topo show -j before a run: the set, no shares" \
	'[false, 1, 2, [1, 2, 3], false]' \
	"$("$RWCTL" -j topo show shard | jpy '[d["declared"], d["box_set"]["epoch"], d["box_set"]["self"], [x["id"] for x in d["box_set"]["boxes"]], any("chunks" in x for x in d["box_set"]["boxes"])]')"
t_eq "topo show: the set in text" \
"box set epoch 1, 3 boxes, this box is 2:
    box 1  10.0.0.1:18515
    box 2  10.0.0.2:18515  (this box)
    box 3  [fd00::3]:7000" \
	"$("$RWCTL" topo show shard | sed -n '/^box set/,/^    box 3/p')"
t_eq "topo show -j of a job without a set: none" false \
	"$("$RWCTL" -j topo show plain | jpy '"box_set" in d')"

# ---- policy set replaces it ----
t_ok "policy set: a new set" \
	"$RWCTL" policy set shard boxes '1@10.0.0.1,2@10.0.0.2,4@10.0.0.4:7001' self 2
t_eq "policy set: the new set, epoch 2" \
	'[2, 2, [[1, "10.0.0.1", 18515, false], [2, "10.0.0.2", 18515, true], [4, "10.0.0.4", 7001, false]]]' \
	"$(set_of shard)"
t_ok "policy set: a set with its epoch" \
	"$RWCTL" policy set shard boxes '2@10.0.0.2,5@[fd00::5]' self 5 epoch 7
t_eq "policy set: epoch 7 as given, this box now 5" \
	'[7, 5, [[2, "10.0.0.2", 18515, false], [5, "fd00::5", 18515, true]]]' "$(set_of shard)"
t_ok "policy set: the same set again" \
	"$RWCTL" policy set shard boxes '2@10.0.0.2,5@[fd00::5]' self 5
t_eq "policy set without an epoch: the old + 1" 8 "$(set_of shard | jpy 'd[0]')"
t_ok "policy set: a set for the job without one" \
	"$RWCTL" policy set plain boxes '1@10.0.0.1' self 1
t_eq "a first set by policy set: epoch 1" '[1, 1, [[1, "10.0.0.1", 18515, true]]]' \
	"$(set_of plain)"

# ---- bad sets: refused, nothing changed ----
before=$("$RWCTL" -j job show shard)
refused() {
	local what=$1 want=$2 msg rc
	shift 2
	msg=$("$RWCTL" "$@" 2>&1)
	rc=$?
	t_eq "$what: usage error, exit 2" 2 "$rc"
	t_ok "$what: the message says '$want'" grep -qF -- "$want" <<<"$msg"
}
refused "a duplicate id" "box 1@10.0.0.5: id 1 is in the set twice" \
	policy set shard boxes 1@10.0.0.1,1@10.0.0.5 self 1
refused "job add: this box outside the set" "self 3 is not one of the set's box ids" \
	job add other workers 1 boxes 1@10.0.0.1,2@10.0.0.2 self 3
# A box may name itself outside a set a running job moves to (it leaves
# the job); between runs the module wants it in the set.
msg=$("$RWCTL" policy set shard boxes 1@10.0.0.1,2@10.0.0.2 self 3 2>&1)
t_eq "policy set, this box outside the set, no run: exit 1" 1 "$?"
t_ok "... the module says why" grep -qF "this box's id is not in the set" <<<"$msg"
refused "a bad address" "box 2@10.0.0.300: not an address" \
	policy set shard boxes 1@10.0.0.1,2@10.0.0.300 self 1
refused "an unknown word" "unknown argument 'colour' to 'policy set'" \
	policy set shard boxes 1@10.0.0.1 self 1 colour blue
refused "a set without self" "'boxes' needs 'self ID'" \
	policy set shard boxes 1@10.0.0.1
refused "job add with a duplicate address" "boxes 1 and 2 have one address, 10.0.0.1:18515" \
	job add other workers 1 boxes 1@10.0.0.1,2@10.0.0.1:18515 self 1
t_eq "job add refused: no job made" false \
	"$("$RWCTL" -j job show | jpy 'any(j["name"] == "other" for j in d["jobs"])')"

# The module's own checks, past rwctl: EINVAL (ERANGE for what the
# attribute policy bounds) and the rule in the extended ack.
raw dup-id dup-addr dup-default-port self-out no-self self-alone \
	empty-with-self addr-5 addr-3 addr-zero addr-zero6 no-addr id-0 \
	id-65536 port-0 epoch-0 boxes-65 reply-only not-nested other-entry \
	new:dup-id new:self-out >"$RW_OUT/raw.txt" 2>&1
t_eq "raw requests: one answer each" 22 "$(wc -l <"$RW_OUT/raw.txt")"
sed 's/^/# raw: /' "$RW_OUT/raw.txt"
module_says() {
	local case=$1 err=$2 want=$3 line
	line=$(grep "^$case " "$RW_OUT/raw.txt")
	t_eq "module refuses $case with errno $err" "$err" "$(echo "$line" | cut -d' ' -f2)"
	t_ok "module refuses $case saying '$want'" grep -qF -- "$want" <<<"$line"
}
module_says dup-id 22 "a box id is in the set twice"
module_says dup-addr 22 "two boxes of the set have one address"
module_says dup-default-port 22 "two boxes of the set have one address"
module_says self-out 22 "this box's id is not in the set"
module_says no-self 22 "a box set needs this box's id"
module_says self-alone 22 "go with a box set"
module_says empty-with-self 22 "an empty box set (none) takes no id or epoch"
module_says addr-5 22 "a box's address is 4 (IPv4) or 16 (IPv6) bytes"
module_says addr-3 34 "binary attribute size out of range"
module_says addr-zero 22 "a box needs an IPv4 or IPv6 address"
module_says addr-zero6 22 "a box needs an IPv4 or IPv6 address"
module_says no-addr 22 "a box needs its id and address"
module_says id-0 34 "integer out of range"
module_says id-65536 34 "integer out of range"
module_says port-0 34 "integer out of range"
module_says epoch-0 34 "integer out of range"
module_says boxes-65 22 "a box set holds 1 to 64 boxes"
module_says reply-only 22 "Unsupported attribute"
module_says not-nested 22 "NLA_F_NESTED is missing"
module_says other-entry 22 "a box set holds RW_JOB_A_BOX entries only"
module_says new:dup-id 22 "a box id is in the set twice"
module_says new:self-out 22 "this box's id is not in the set"
t_eq "job new refused: no job made" false \
	"$("$RWCTL" -j job show | jpy 'any(j["name"] == "rawjob" for j in d["jobs"])')"
t_eq "every refusal left the job as it was" "$before" "$("$RWCTL" -j job show shard)"

# ---- not while a run is active ----
head -c 32 /dev/urandom >"$TOKEN"
t_ok "job add a job to run" "$RWCTL" job add running workers 2 chunk-size 4096 token-file "$TOKEN"
"$DEV_CHECK" hold running "$TOKEN" 0 >"$RW_OUT/hold.log" 2>&1 &
holder=$!
for _ in $(seq 300); do
	grep -qx ready "$RW_OUT/hold.log" && break
	kill -0 "$holder" 2>/dev/null || break
	sleep 0.1
done
t_ok "a worker attaches and holds a run" grep -qx ready "$RW_OUT/hold.log"
msg=$("$RWCTL" policy set running boxes 1@10.0.0.1 self 1 2>&1)
t_eq "policy set of a set during a run: exit 1" 1 "$?"
t_ok "policy set during a run: the module says why" \
	grep -qF "job 'running' is busy: a job's first box set is given between runs" <<<"$msg"
t_eq "the refused set is not the job's" null "$(set_of running)"
t_ok "evict-ms still changes during the run" "$RWCTL" policy set running evict-ms 4000
kill -9 "$holder"
wait "$holder" 2>/dev/null
holder=
for _ in $(seq 50); do
	[ "$("$RWCTL" -j job show running | jpy 'd["jobs"][0]["attached"]')" = 0 ] && break
	sleep 0.1
done
t_ok "policy set of a set once the run is over" \
	"$RWCTL" policy set running boxes 1@10.0.0.1 self 1
t_eq "the run's end let the set in" '[1, 1, [[1, "10.0.0.1", 18515, true]]]' "$(set_of running)"

# ---- boxes none ----
t_ok "policy set boxes none" "$RWCTL" policy set shard boxes none
t_eq "boxes none: the set is gone" null "$(set_of shard)"
t_eq "boxes none: topo show has none either" false \
	"$("$RWCTL" -j topo show shard | jpy '"box_set" in d')"
t_ok "a set again after none: policy set" \
	"$RWCTL" policy set shard boxes '1@10.0.0.1,2@10.0.0.2' self 1
t_eq "a set after none starts at epoch 1" 1 "$(set_of shard | jpy 'd[0]')"
t_ok "job del of jobs with sets" sh -c "'$RWCTL' job del shard && '$RWCTL' job del plain && '$RWCTL' job del running"
t_ok "rmmod with no job left" rmmod rackweave
t_done
