#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --numa 2 --smp 2
#
# RDMA devices come and go under a loaded module: two soft-RoCE devices on
# a veth pair appear in `rwctl -j dev show` with their NUMA nodes, one
# disappears on `rdma link delete`, and the module unloads cleanly. Also:
# the status command sees the fake NUMA topology, and bad module parameters
# are refused at load with a message saying what is accepted.
. "$(dirname "$0")/lib.sh"

t_ok "load ib_core and rackweave.ko" rw_load
t_ok "/dev/rackweave exists" test -c /dev/rackweave

st=$("$RWCTL" -j status)
t_eq "status: version matches the module" \
	"$(cat /sys/module/rackweave/version)" "$(echo "$st" | jpy 'd["version"]')"
t_eq "status: sees 2 NUMA nodes (numa=fake=2)" 2 "$(echo "$st" | jpy 'len(d["nodes"])')"
t_eq "status: online CPUs match the kernel's" "$(nproc)" "$(echo "$st" | jpy 'd["cpus_online"]')"
t_eq "status: per-node CPU counts add up" "$(nproc)" \
	"$(echo "$st" | jpy 'sum(n["nr_cpus"] for n in d["nodes"])')"
impl=$(dmesg | sed -n 's/.*aggregation=\([a-z0-9]*\).*/\1/p' | tail -n 1)
t_ok "load message names the aggregation kernels" test -n "$impl"
t_eq "status: reports the same aggregation kernels" "$impl" "$(echo "$st" | jpy 'd["agg_impl"]')"
t_eq "dev show: no devices before rxe" "[]" "$("$RWCTL" -j dev show | jpy 'd["devices"]')"

t_ok "load rdma_rxe" rw_modprobe rdma_rxe
ip link add veth0 type veth peer name veth1
ip addr add 10.77.0.1/24 dev veth0
ip addr add 10.77.0.2/24 dev veth1
ip link set veth0 up
ip link set veth1 up
t_ok "rdma link add rxe0" rdma link add rxe0 type rxe netdev veth0
t_ok "rdma link add rxe1" rdma link add rxe1 type rxe netdev veth1

devs=$("$RWCTL" -j dev show)
t_eq "dev show: lists rxe0 and rxe1" '["rxe0", "rxe1"]' \
	"$(echo "$devs" | jpy 'sorted(x["name"] for x in d["devices"])')"
online=$(cat /sys/devices/system/node/online)
t_eq "dev show: each device has a NUMA node that is -1 or online ($online)" true \
	"$(echo "$devs" | jpy "all(x['numa_node'] == -1 or x['numa_node'] in (0, 1) for x in d['devices'])")"
t_eq "dev show: node matches sysfs for rxe0" "$(cat /sys/class/infiniband/rxe0/device/numa_node 2>/dev/null || echo -1)" \
	"$(echo "$devs" | jpy '[x["numa_node"] for x in d["devices"] if x["name"] == "rxe0"][0]')"
t_ok "dev show: text output names both devices" \
	sh -c "'$RWCTL' dev show | grep -q rxe0 && '$RWCTL' dev show | grep -q rxe1"

mon_start "$RW_OUT/events"

t_eq "monitor: listening" 0 "$?"
t_ok "rdma link delete rxe1" rdma link delete rxe1
t_ok "monitor: hears of it" mon_until "$RW_OUT/events" '"device-gone"'
mon_stop
t_eq "monitor -j: device-gone rxe1" '[["device-gone", "rxe1"]]' \
	"$(mon_events "$RW_OUT/events" '[e["event"], e["dev"]]')"
t_eq "dev show: only rxe0 left" '["rxe0"]' \
	"$("$RWCTL" -j dev show | jpy 'sorted(x["name"] for x in d["devices"])')"

t_ok "rmmod rackweave with an RDMA device present" rmmod rackweave
t_fails "no /dev/rackweave after unload" test -e /dev/rackweave
"$RWCTL" status >/dev/null 2>&1
t_eq "rwctl status exits 1 when the module is not loaded" 1 "$?"

# Bad parameters are refused and say why; nothing stays loaded.
t_fails "insmod chunk_size=3000 is refused" insmod "$(rw_module_path)" chunk_size=3000
t_ok "dmesg explains the chunk_size refusal" \
	sh -c 'dmesg | grep -q "chunk_size=3000 rejected: must be a power of two"'
t_fails "insmod chunk_size=2097152 is refused" insmod "$(rw_module_path)" chunk_size=2097152
t_fails "insmod max_jobs=0 is refused" insmod "$(rw_module_path)" max_jobs=0
t_fails "nothing loaded after refusals" test -d /sys/module/rackweave

# A device present before load is picked up at registration.
t_ok "insmod chunk_size=65536 max_jobs=8" insmod "$(rw_module_path)" chunk_size=65536 max_jobs=8
t_eq "chunk_size parameter reads back" 65536 "$(cat /sys/module/rackweave/parameters/chunk_size)"
t_eq "dev show: rxe0 found at load" '["rxe0"]' \
	"$("$RWCTL" -j dev show | jpy '[x["name"] for x in d["devices"]]')"
t_ok "rdma link delete rxe0 while loaded" rdma link delete rxe0
t_eq "dev show: empty again" "[]" "$("$RWCTL" -j dev show | jpy 'd["devices"]')"
t_ok "rmmod rackweave" rmmod rackweave
t_ok "rmmod rdma_rxe" rmmod rdma_rxe
t_done
