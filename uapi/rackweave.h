/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * RackWeave user-space API: the one definition of every number shared by the
 * kernel module, librackweave, rwctl and the wire.
 *
 * Rules: append only, never renumber; every struct has a fixed size pinned at
 * compile time on both sides (BUILD_BUG_ON in the module, _Static_assert in
 * user space); every ioctl struct starts with its size and flags; unknown flag
 * bits and non-zero reserved fields are rejected with -EINVAL.
 *
 * Character device /dev/rackweave
 * -------------------------------
 * RW_IOC_VERSION (struct rw_version_info, in/out)
 *   In:  size = sizeof(struct rw_version_info), flags = 0, reserved all 0;
 *        version, abi and features are ignored.
 *   Out: version (RW_VERSION_CODE of the running module), abi (RW_ABI_VERSION)
 *        and features (RW_FEAT_* bits the module implements).
 *   Errors: EINVAL for a wrong size, unknown flags or non-zero reserved bytes;
 *           EFAULT for a bad pointer; ENOTTY for an unknown command.
 *
 * RW_IOC_ATTACH (struct rw_attach, in) binds the open file to a job: as the
 *   worker of rank @rank (0..workers-1), or, with RW_ATTACH_OBSERVER and
 *   rank 0, as a read-only observer (a box-side optimizer or checkpointer)
 *   that may map the parameters and versions but never push or pull. The
 *   token is compared in constant time. One attach per open file.
 *   Errors: ENOENT (no such job), EACCES (wrong token), ERANGE (rank not
 *   below the job's worker count), EADDRINUSE (rank attached elsewhere),
 *   EISCONN (this file is attached already), EINVAL (size, flags, reserved
 *   bytes, an observer with a rank other than 0, or a job name that is
 *   not NUL-terminated).
 *   With RW_ATTACH_REMOTE the job lives on another host, the box whose
 *   listener @box_family, @box_addr and @box_port name: this module
 *   connects to it over RDMA (see "RDMA wire" below) from the device
 *   that routes to that address, with a request signed by the token,
 *   and the file becomes that box's worker of rank @rank. Everything
 *   after the attach works as for a local job: RW_IOC_DECLARE sends the
 *   layout and returns the box's answer, RW_IOC_SETUP reports the box's
 *   geometry, the buffers are this host's memory mapped at the same
 *   offsets, a push writes the chunks to the box and a pull waits for
 *   the box's parameter writes. With RW_ATTACH_OBSERVER too (rank 0,
 *   no @box_more) the file is the box's observer ("Observers" below):
 *   RW_IOC_DECLARE sends the layout for the box to check against its run
 *   (ENOTCONN: none yet; EEXIST: another), and the parameters and
 *   versions this host maps follow the box's, refreshed within
 *   RW_WIRE_OBSERVE_MS of a step. More errors:
 *   EAFNOSUPPORT (a family other than AF_INET or AF_INET6),
 *   EHOSTUNREACH, ENETUNREACH or ETIMEDOUT (no route to the box or no
 *   answer), ECONNREFUSED (nothing listens there), and the box's refusal
 *   (EACCES for an unknown job or a wrong token: the box tells neither
 *   apart; ERANGE, EADDRINUSE, ETIMEDOUT for a clock too far off).
 *   Once attached, a lost connection makes every later call fail with
 *   ECONNRESET; the file may be closed and a new one attached.
 *   A box with several NICs listens on each: @box_more points to
 *   @nr_box_more (at most RW_WIRE_MAX_NICS - 1) more struct
 *   rw_attach_addr, the box's other listeners, and the module opens one
 *   connection per address (each from the device that routes there),
 *   each chunk travelling on the one connection the box gives it (by its
 *   chunk map: "RDMA wire" below). The attachment is one worker of the
 *   box: any connection's loss breaks it whole. More errors: EINVAL (a
 *   count above the limit, a pointer without a count or the reverse, a
 *   non-zero reserved field), EFAULT (the array), EADDRINUSE also when
 *   two addresses reach the same box device.
 *
 * RW_IOC_DECLARE (struct rw_declare, in) gives the model's tensor layout:
 *   @nr_tensors entries of struct rw_tensor_desc at @tensors, in the order
 *   they lie in the flat buffer (each starts at the next 64-byte boundary).
 *   The first worker's layout becomes the job's and creates its chunk
 *   engine and gate; later workers must send the same layout (same keys,
 *   sizes, types, in the same order), or set RW_DECLARE_VERIFY to only
 *   check it. Errors: EEXIST (a different layout is declared; nothing
 *   changes), ENOENT (RW_DECLARE_VERIFY and nothing declared yet),
 *   EOPNOTSUPP (a dtype aggregation does not handle yet: only F32),
 *   EINVAL (zero tensors or elements, duplicate keys, unknown dtype),
 *   E2BIG (more than RW_MAX_TENSORS tensors, or more chunks than the
 *   engine handles), EOVERFLOW, ENOTCONN (not attached), EPERM (observer),
 *   EDQUOT (the run would take more than the job's max-memory), ENOSPC
 *   (more than is left of the box's max_memory), ENOMEM (the box could not
 *   find the memory; it never wakes the OOM killer for a run), EINTR (a
 *   fatal signal stopped a long start; nothing is kept). A remote worker's
 *   declare gets the same errors through the setup reply's status.
 *
 * RW_IOC_SETUP (struct rw_setup, in/out) reports the geometry once a layout
 *   is declared: worker count, chunk size, chunk and tensor counts, the
 *   model's bytes, the job's sync mode, the NUMA node holding most of its
 *   memory, and where each buffer is mapped: mmap(fd) at
 *     RW_MMAP_GRAD     this worker's gradient buffer, read-write, MAP_SHARED
 *                      (nr_chunks * chunk_size bytes; chunk c at c *
 *                      chunk_size; tensors at their layout offsets)
 *     RW_MMAP_PARAMS   the parameters, same geometry, read-only
 *     RW_MMAP_VERSIONS one __u64 per chunk: optimizer steps applied to it,
 *                      read-only (the length rounded up to a page)
 *   A mapping may start anywhere (page-aligned) inside a buffer and must
 *   end inside it. The pages are the engine's own (no copy); a mapping
 *   keeps the job's memory alive after the job is deleted or the file is
 *   closed, until munmap. Errors for mmap: EINVAL (unknown offset, beyond
 *   the buffer, MAP_PRIVATE of the gradient), EACCES (writable mapping of
 *   a read-only buffer; observers get no gradient buffer), ENOTCONN;
 *   mremap cannot grow a mapping. Errors for RW_IOC_SETUP: EINVAL (size,
 *   flags, reserved), ENOTCONN (not attached, or no layout declared yet:
 *   for an observer, no run yet), ENODEV (job deleted), ESTALE (evicted).
 *   A run's buffers live as long as the run: a checkpointer attaches as
 *   an observer while the workers train, and may read after they leave.
 *
 * RW_IOC_PUSH, RW_IOC_PULL, RW_IOC_PUSHPULL (struct rw_xfer, in) move a set
 *   of chunks: @nr struct rw_range at @ranges, each chunks [first, first +
 *   count), or with RW_XFER_KEYS whole tensors (first = key, count = 0);
 *   @nr = 0 means every chunk. A push hands this worker's gradients for
 *   the chunks, already written in the gradient buffer, to the chunk
 *   engine; once every chunk is pushed the worker's iteration is complete
 *   and the gate learns of it. Do not write a pushed chunk's gradient again
 *   before a pull of it returns. A pull waits until the gate admits this
 *   worker's next iteration and every chunk listed is fresh: under BSP,
 *   the step of the iteration this worker pushed is done (its gradient
 *   summed, or dropped as late); otherwise, this worker's own gradients
 *   and every gradient pushed before the pull began (except, after a
 *   switch from BSP, gradients a BSP round of an earlier iteration still
 *   holds for its quorum). When a pull returns, the versions buffer
 *   counts the steps it waited for.
 *   What a BSP step computes: a chunk's step for iteration i sums, in rank
 *   order, the gradients of iteration i of the job's members of the moment
 *   (every live rank attached by then) and scales the sum by 1/(number
 *   summed) before the optimizer. A worker that leaves (detach, close,
 *   kill, eviction) stops being waited for at once, and what it pushed
 *   but was not yet summed is dropped; a worker attaching to a free rank
 *   starts at the live minimum clock and is needed from that iteration on.
 *   With a quorum K (backup workers, RW_JOB_A_QUORUM) a step takes the
 *   first K gradients of its iteration to arrive (min(K, members)); a
 *   later one is dropped and counted (RW_STAT_A_LATE_DROPPED), its pull
 *   returns the fresh parameters, and its next iteration is the current
 *   one (its clock skips ahead).
 *   Ranges may overlap: a call moves the union of its chunks once.
 *   PUSHPULL is a push, then a pull, of the same chunks; if its pull part
 *   does not finish (EAGAIN, ETIMEDOUT, a signal), the push has happened,
 *   and the same PUSHPULL issued again (or restarted) only pulls.
 *   RW_XFER_NONBLOCK: return EAGAIN instead of waiting (a PUSH then pushes
 *   nothing); poll() on the file reports POLLIN once the last pull that
 *   returned EAGAIN would succeed, POLLOUT when none of this worker's
 *   gradients is still being summed, and POLLERR on a file that is not a
 *   declared worker, or whose job is gone or which was evicted.
 *   @timeout_ms: 0 waits without limit, else ETIMEDOUT.
 *   Errors: EINVAL (size, flags, reserved bytes, a range outside the model
 *   or an empty range), ENOENT (unknown tensor key), EALREADY (a chunk
 *   pushed twice in one iteration: nothing is pushed), E2BIG (more than
 *   RW_XFER_MAX_RANGES ranges), ENOTCONN (not attached or no layout yet),
 *   ESTALE (evicted: close the file, unmap its buffers and attach again;
 *   the rank stays held until then), ENODEV (the job was deleted),
 *   EPERM (observer), EINTR.
 *
 * Generic netlink family "rackweave" (RW_GENL_NAME, version RW_GENL_VERSION)
 * ---------------------------------------------------------------------------
 * RW_CMD_STATUS_GET (doit; no attributes accepted; no privilege needed)
 *   Reply attributes (enum rw_attr):
 *     RW_A_VERSION       string  module version, "MAJOR.MINOR.PATCH"
 *     RW_A_VERSION_CODE  u32     RW_VERSION_CODE of the module
 *     RW_A_FEATURES      u64     RW_FEAT_* bits
 *     RW_A_CPUS_ONLINE   u32     number of online CPUs the module sees
 *     RW_A_NODES         nest    one RW_A_NODES_ENTRY per online NUMA node:
 *       RW_NODE_A_ID       u32     node id
 *       RW_NODE_A_NR_CPUS  u32     online CPUs whose home node this is
 *       RW_NODE_A_CPULIST  string  the same CPUs as a list ("0-3,8")
 *       RW_NODE_A_MEM_MB   u64     memory present on the node, MiB
 *     RW_A_DEVICES       nest    one RW_A_DEVICES_ENTRY per RDMA device the
 *                                module's ib_client has been given:
 *       RW_DEV_A_NAME      string  ib device name (e.g. "rxe0")
 *       RW_DEV_A_NODE      s32     NUMA node of the device, -1 if it has none
 *       RW_DEV_A_PORTS     u32     number of ports
 *       RW_DEV_A_NODE_GUID u64     node GUID (host byte order)
 *       RW_DEV_A_INDEX     u32     ib device index (stable while registered)
 *     RW_A_AGG_IMPL      string  aggregation kernels chosen at load
 *                                ("scalar", "avx2", "avx512", ...)
 *     RW_A_LISTENERS     nest    one RW_A_LISTENERS_ENTRY per listener, in
 *                                the order they were added (enum
 *                                rw_listen_attr): _ADDR, _PORT, _DEV, _UP,
 *                                _REQUESTS, _ACCEPTED, _CONNECTED, the
 *                                refusals by reason, _REF_PROTO.._REF_OTHER,
 *                                and the connections it accepted that the
 *                                box closed for breaking the rules, by
 *                                kind, _VIOL_PROTO and _VIOL_ACCESS
 *     RW_A_CONNECTIONS   nest    one RW_A_CONNECTIONS_ENTRY per remote worker
 *                                connected now (enum rw_conn_attr): the
 *                                peer's _ADDR and _PORT, the box's _DEV,
 *                                its _JOB and _RANK, and what it moved:
 *                                _PUSHES (chunks received), _WRITES
 *                                (parameter chunks sent), _MESSAGES
 *                                (control messages, both ways)
 *     RW_A_REMOTES       nest    one RW_A_REMOTES_ENTRY per file of this
 *                                host attached to a job on another box
 *                                (RW_ATTACH_REMOTE), with enum
 *                                rw_conn_attr seen from this side: the
 *                                box's _ADDR and _PORT, this host's _DEV
 *                                ("" once the connection is torn down),
 *                                _JOB, _RANK, _PUSHES (chunks written to
 *                                the box), _WRITES (parameter chunks the
 *                                box wrote here), _MESSAGES, and _BROKEN
 *                                (1 once the connection is lost)
 *     RW_A_MEM_BUDGET    u64     bytes every job's runs may take together:
 *                                the max_memory module parameter (default
 *                                half the machine's memory)
 *     RW_A_MEM_USED      u64     bytes charged to runs now
 *
 * RW_CMD_LISTEN_ADD (doit; CAP_NET_ADMIN): RW_LISTEN_A_ADDR, optional
 *   RW_LISTEN_A_PORT (default RW_WIRE_PORT, not 0). The box listens for
 *   workers' connect requests there (see "RDMA wire"). Errors: EEXIST
 *   (listening there already), EADDRNOTAVAIL (no RDMA device has the
 *   address), EADDRINUSE (another RDMA listener has it), ENOSPC (16
 *   listeners), EINVAL (a missing or malformed attribute), each with an
 *   extended ack. Adding a listener that is down (its device was removed)
 *   binds it again.
 * RW_CMD_LISTEN_DEL (doit; CAP_NET_ADMIN): the same attributes; ENOENT if
 *   the box does not listen there. Connections it accepted stay up.
 *
 * RW_CMD_JOB_NEW (doit; CAP_NET_ADMIN) creates a job. Attributes (enum
 * rw_job_attr) of the request:
 *     RW_JOB_A_NAME         string  required; 1..RW_JOB_NAME_MAX-1 bytes of
 *                                   [A-Za-z0-9._-]; unique on the box
 *     RW_JOB_A_WORKERS      u32     required; 1..RW_JOB_MAX_WORKERS
 *     RW_JOB_A_CHUNK_SIZE   u32     power of two, 4096..1048576 and at least
 *                                   the page size; default: the module's
 *                                   chunk_size parameter
 *     RW_JOB_A_TOKEN        binary  RW_JOB_TOKEN_LEN bytes; absent: the module
 *                                   generates one and returns it, once, in
 *                                   the reply
 *     RW_JOB_A_SYNC         u32     enum rw_sync_mode; default BSP
 *     RW_JOB_A_STALENESS    u32     SSP bound s, 1..RW_JOB_MAX_STALENESS
 *     RW_JOB_A_STALENESS_LO u32     ADAPTIVE band low end s_L (>= 1)
 *     RW_JOB_A_STALENESS_HI u32     ADAPTIVE band high end s_U, s_L..1024
 *     RW_JOB_A_EVICT_MS     u32     evict a silent worker after this; 0: never
 *     RW_JOB_A_QUORUM       u32     BSP backup workers: a step of a chunk sums
 *                                   the first K gradients of its iteration
 *                                   to arrive, K in 1..workers (ERANGE
 *                                   otherwise); absent or K = workers: every
 *                                   live member's. Replies carry the K in
 *                                   force (workers when none is set).
 *     RW_JOB_A_OPTIM        u32     enum rw_optim; default SGD
 *     RW_JOB_A_MAX_MEMORY   u64     bytes a run of the job may take, all
 *                                   told (parameters, optimizer state,
 *                                   every worker's slots, versions, RDMA
 *                                   windows); 0 or absent: half the box's
 *                                   budget (RW_A_MEM_BUDGET). A declare
 *                                   that would start a run over it fails
 *                                   EDQUOT; over what is left of the box's
 *                                   budget, ENOSPC (the kernel log gives
 *                                   the figures). May change at any time;
 *                                   a run keeps what it was charged.
 *     RW_JOB_A_LR, _MOMENTUM, _WEIGHT_DECAY, _BETA1, _BETA2, _EPS
 *                           u32     optimizer hyper-parameters, each an IEEE
 *                                   754 binary32 bit pattern; defaults: lr
 *                                   0.01, momentum 0.9, weight decay 0, betas
 *                                   0.9 and 0.999, eps 1e-8
 *     RW_JOB_A_BOXES        nest    the job's box set: the boxes its chunks
 *                                   are spread over, the same set given to
 *                                   the job on each of them; one RW_JOB_A_BOX
 *                                   entry per box, 1..RW_JOB_MAX_BOXES, each
 *                                   of enum rw_box_attr:
 *       RW_BOX_A_ID           u32     required; 1..RW_BOX_MAX_ID, once in
 *                                     the set
 *       RW_BOX_A_ADDR         binary  required; 4 (IPv4) or 16 (IPv6) bytes
 *                                     in network order, not all zero: where
 *                                     trainers reach the box
 *       RW_BOX_A_PORT         u16     host order, not 0; default
 *                                     RW_WIRE_PORT (replies always carry it)
 *                                   No address and port twice in a set.
 *                                   Absent or empty: the job is whole on
 *                                   this box (no set).
 *     RW_JOB_A_BOX_SELF     u32     with a set, required: this box's id in it
 *     RW_JOB_A_BOX_EPOCH    u32     with a set: its epoch, >= 1; default 1.
 *                                   Boxes and trainers compare sets by
 *                                   their epoch and boxes, never by order.
 *                                   A set that breaks a rule above is
 *                                   refused with EINVAL (ERANGE for a
 *                                   number or address length outside its
 *                                   attribute's range) and an extended
 *                                   ack saying which rule; the reply-only
 *                                   RW_BOX_A_CHUNKS and _BYTES are refused.
 *   What a step writes into a chunk's parameters p: with g the gradients
 *   it sums, in rank order, times 1/(number summed) (BSP), or the one
 *   gradient it applies times 1/workers (ASP, SSP, adaptive), plus
 *   weight_decay * p, the optimizer of torch.optim: SGD p -= lr * g;
 *   MOMENTUM b = momentum * b + g, p -= lr * b; NESTEROV the same b,
 *   p -= lr * (g + momentum * b); ADAM with bias correction. AVERAGE is
 *   no optimizer: p becomes the mean of the gradients the step summed
 *   (their f32 sum in rank order times the f32 1/(number summed), to the
 *   bit), so a pull returns the averaged gradient to trainers that keep
 *   their own optimizer; its hyper-parameters are ignored and it has no
 *   state. Under ASP, SSP and adaptive its step applies one gradient,
 *   unscaled: the parameters are the most recent gradient applied.
 *   Reply: the job as RW_CMD_JOB_GET describes it, plus RW_JOB_A_TOKEN when
 *   the module generated it. Errors: EEXIST (name taken), ENOSPC (max_jobs
 *   reached), ERANGE (a number outside its attribute's range, or a token
 *   of the wrong length), EINVAL (a missing or malformed attribute, or a
 *   bad combination, with an extended ack saying which), EPERM.
 *
 * RW_CMD_JOB_DEL (doit; CAP_NET_ADMIN): RW_JOB_A_NAME, optional
 *   RW_JOB_A_FLAGS (RW_JOB_DEL_FORCE). Refused with EBUSY while workers are
 *   attached unless forced. The token is wiped. ENOENT for an unknown name.
 *
 * RW_CMD_JOB_GET: doit with RW_JOB_A_NAME, or dump of every job (restartable;
 *   a dump that raced with a change is flagged NLM_F_DUMP_INTR). Each job:
 *   RW_JOB_A_NAME, RW_JOB_A_ID, RW_JOB_A_WORKERS, RW_JOB_A_CHUNK_SIZE,
 *   RW_JOB_A_SYNC and its bounds (RW_JOB_A_QUORUM for BSP),
 *   RW_JOB_A_EVICT_MS, RW_JOB_A_OPTIM and its hyper-parameters,
 *   RW_JOB_A_ATTACHED (workers attached now),
 *   RW_JOB_A_MAPPINGS (live mmaps of its buffers), RW_JOB_A_MAX_MEMORY (as
 *   set, 0 for the default), RW_JOB_A_MEMORY_LIMIT (the limit in force),
 *   RW_JOB_A_MEMORY (bytes charged now) and, once a layout is
 *   declared, RW_JOB_A_TENSORS, RW_JOB_A_CHUNKS and RW_JOB_A_MODEL_BYTES.
 *   A job with a box set: RW_JOB_A_BOXES (each entry RW_BOX_A_ID, _ADDR,
 *   _PORT), RW_JOB_A_BOX_SELF and RW_JOB_A_BOX_EPOCH; one moving to
 *   another set: RW_JOB_A_MOVE, a nest of those three for the set it moves
 *   to (_BOX_SELF 0: this box leaves the job); one waiting for chunks a
 *   move gives this box ("Gifts"): RW_JOB_A_CARRY_DUE, how many have not
 *   come (its next run starts once they have). Never the token.
 *
 * RW_CMD_POLICY_SET (doit; CAP_NET_ADMIN): RW_JOB_A_NAME and any of the
 *   settings RW_CMD_JOB_NEW takes except the token; the others keep their
 *   values, and the result is checked as a whole (EINVAL or ERANGE with an
 *   extended ack). A run starts with the first RW_IOC_DECLARE and ends when
 *   the last attached file is released (its mappings gone). The sync
 *   settings (RW_JOB_A_SYNC, the staleness bounds, RW_JOB_A_QUORUM),
 *   RW_JOB_A_EVICT_MS and RW_JOB_A_MAX_MEMORY also change a running job
 *   (the memory limit from its next run): the gate applies them to
 *   every request from then on and the engine's step rule changes at the
 *   next iteration boundary (iterations already begun keep the old rule).
 *   Changing the sync mode without RW_JOB_A_QUORUM drops a quorum unless
 *   the mode stays BSP. Workers, chunk size and the optimizer change
 *   between runs only: while a run exists they are refused with EBUSY and
 *   an extended ack. RW_JOB_A_BOXES with RW_JOB_A_BOX_SELF replaces the
 *   job's box set, whole: its epoch is RW_JOB_A_BOX_EPOCH if given, else
 *   the old set's plus one (1 if the job had none); an empty
 *   RW_JOB_A_BOXES (without _SELF or _EPOCH) removes the set. While a run
 *   exists, a set given this way is the job's move (docs/design.md "Many
 *   boxes"), taken when the run ends: it must follow the job's set (its
 *   epoch the next, which is the default), RW_JOB_A_BOX_SELF is this
 *   box's id in the job's set (a box that leaves is not in the new one),
 *   and one move is pending at a time; a first set, or removing one, waits
 *   for the run's end (each refused with EBUSY and an extended ack). A
 *   move that changes a chunk's owner under the run's layout is refused
 *   with EBUSY for now. When the run ends, this box keeps its chunks
 *   of it (charged to the job from the order on: EDQUOT, ENOSPC) and the
 *   next run starts from them, as from a restored checkpoint. A refused
 *   request changes nothing. Every
 *   change is announced as RW_EVENT_POLICY. Reply: the job, as
 *   RW_CMD_JOB_GET.
 *
 * RW_CMD_TOPO_GET (doit; no privilege): RW_JOB_A_NAME. Reply: the job's
 *   name and, once a layout is declared, RW_JOB_A_CHUNKS, RW_JOB_A_CORES
 *   (one entry per aggregation core: RW_TOPO_A_CPU, _NODE, _CHUNKS,
 *   _BYTES, _BUSY_NS), RW_JOB_A_NICS (per NIC: RW_TOPO_A_NIC, _NODE,
 *   _CHUNKS, _BYTES) and RW_JOB_A_CHUNK_MAP (runs of consecutive chunks
 *   with one placement: RW_TOPO_A_FIRST, _COUNT, _CPU, _NIC, _NODE; at most
 *   RW_TOPO_MAX_RUNS runs, RW_TOPO_A_TRUNCATED set if there were more).
 *   The box's nodes and RDMA devices come from RW_CMD_STATUS_GET. Until
 *   jobs carry RDMA devices each node has one local NIC whose id is the
 *   node's.
 *   A job with a box set also has RW_JOB_A_BOXES, RW_JOB_A_BOX_SELF and
 *   RW_JOB_A_BOX_EPOCH as RW_CMD_JOB_GET has them (the run's set while a
 *   run exists) and, once a layout is declared, each box's share of the
 *   run's chunks in its entry: RW_BOX_A_CHUNKS (the chunks it owns by the
 *   set's rendezvous hashing, seeded by the job's name) and
 *   RW_BOX_A_BYTES (their bytes).
 *
 * RW_CMD_STATS_GET (doit; no privilege): RW_JOB_A_NAME. Reply: the job's
 *   name, RW_JOB_A_STATS (the job: RW_STAT_A_PUSHES, _PULLS, _BYTES,
 *   _CHUNKS, _STEPS, _BUSY, _MIGRATIONS, _ERRORS, _EVICTIONS, _MIN_CLOCK,
 *   _MAX_SKEW, _EPOCH, _LIVE, _PARKED, _LATE_DROPPED, _MOVED_OUT,
 *   _MOVED_IN: the chunks this box gave to and took from other boxes of
 *   the job's set in moves, "Gifts") and
 *   RW_JOB_A_WORKER_STATS (one entry per rank: RW_STAT_A_RANK, _ATTACHED,
 *   _LIVE, _CLOCK, _PUSHES, _PULLS, _BYTES, _CHUNKS, _PARKS, _PARKED_NS,
 *   _EVICTIONS, _ERRORS, _LATE_DROPPED). Counters start at
 *   0 when the job is created and count over all its runs (a run's end
 *   resets none); bytes and chunks count gradients pushed. The gate's
 *   state (_EPOCH, _LIVE, _PARKED, _MIN_CLOCK, _MAX_SKEW, a rank's _CLOCK
 *   and _LIVE) is the current run's, 0 between runs.
 *
 * Multicast group "events" (RW_GENL_MCGRP_EVENTS; joining needs
 *   CAP_NET_ADMIN) carries RW_CMD_EVENT messages: RW_JOB_A_EVENT (enum
 *   rw_event_kind), RW_JOB_A_NAME (the job, if any), RW_JOB_A_RANK (the worker,
 *   if any), RW_JOB_A_DEV (the RDMA device, if any).
 *
 * Messages with attributes the command does not take, attributes of the wrong
 * type or length, and unknown commands are rejected with EINVAL or EOPNOTSUPP
 * and an extended ack message.
 *
 * RDMA wire (between the box's module and a worker host's module)
 * ----------------------------------------------------------------
 * Reliable connected queue pairs set up through rdma_cm (port space TCP,
 * default port RW_WIRE_PORT). Every multi-byte field is little-endian;
 * reserved fields are sent as 0 and a receiver refuses anything else.
 *
 * Connect request: the private data of rdma_connect() is struct
 *   rw_wire_req (56 bytes, all an RoCE/IB connect request leaves after
 *   rdma_cm's own header). It names the job by @job_tag rather than by name
 *   (the name and an authenticator do not both fit): the tag and @auth are
 *   derived from the job's token, so only a holder of the token can name
 *   the job or connect to it; the box checks both in constant time before
 *   it creates anything for the peer. @nic, @nr_nics and @session say
 *   which connection of its attachment this is: all 0 for an attachment
 *   of one connection; otherwise @nr_nics (2..RW_WIRE_MAX_NICS) is the
 *   number of connections the worker opens, one per box address, @nic
 *   this one's index (below @nr_nics) and @session a non-zero value the
 *   same on all of them and new for each attachment. The box makes the
 *   connections of one (job, rank, session) one worker, attached once,
 *   and refuses with EADDRINUSE a second connection of an index, two on
 *   one box device, or a rank held by another attachment; the first of
 *   them to close closes the others. Each chunk travels, pushes and
 *   parameter writes both, on one connection only, the one the box
 *   gives it (every chunk on the one connection without @nr_nics). The
 *   box keeps each chunk on a NIC of the NUMA node its chunk map homes
 *   the chunk on: chunk c, the k-th (from 0, in chunk order) of the
 *   chunks homed on node n, goes to the (k mod m)-th, in index order, of
 *   the m connections whose box device is on node n, or of all the
 *   attachment's connections if none is (a device without a node, as
 *   soft-RoCE's, is on none). The box decides it once, at the first
 *   setup of the attachment, from the connections it has by then (a
 *   worker connects them all before any setup). The worker needs no
 *   rule: the box writes each chunk's first parameters on the chunk's
 *   connection, and each reply counts the chunks its connection carries.
 *   Box sets: a job spread over several boxes (its box set, made with
 *   rwctl on each box) has each chunk on one box, the set's owner of it
 *   (rendezvous hashing of the job's name, the chunk and the box ids:
 *   kmod/chunk/boxset.h). A worker attaches with RW_ATTACH_BOXES and one
 *   address per box, opening one connection to each (@nic, @nr_nics and
 *   @session 0 on each, as for a single connection); each box's setup
 *   reply names its id, the set's size, epoch and digest, and counts its
 *   own chunks in nr_own. The worker refuses (EXDEV) replies that name
 *   different sets, two connections to one box, fewer connections than
 *   the set has boxes, or a set when it did not ask for one (or none when
 *   it did); the box writes and takes only its own chunks, and a request
 *   for the whole run (an init, its wait) goes to every box in turn.
 *   @rank is the worker's rank, @epoch
 *   the membership epoch it last knew (0: first attach), @nonce a random
 *   value never reused, @time_s the sender's CLOCK_REALTIME in seconds (a
 *   request far from the box's clock is refused, and a nonce seen within
 *   that window is a replay). The box remembers, per rank, every
 *   authenticated request it could take, refused ones too, until its time
 *   leaves the window; a rank's requests beyond its room for one second
 *   (16), or dated no later than ones it no longer holds, are refused
 *   EBUSY: a new request a second later (new nonce and time, from a clock
 *   not set back) gets in.
 *   With HMAC the HMAC-SHA256 of RFC 2104 keyed by the job's 32-byte token
 *   and NUL the zero byte:
 *     job_tag = HMAC("rackweave job tag" NUL job name)[0..7]
 *     auth    = HMAC("rackweave connect" NUL the request's bytes 0..39)[0..15]
 *   Refusals carry struct rw_wire_rej as the reject's private data:
 *   @reason a positive errno: EACCES (unknown job or wrong authenticator:
 *   the same answer for both), EPROTO (malformed request, unknown
 *   version), ERANGE (rank not below the job's worker count), EADDRINUSE
 *   (rank connected elsewhere), ESTALE (epoch older than the job's),
 *   ETIMEDOUT (time_s too far off, or a replayed nonce), EBUSY (no run or
 *   no room for the peer now, or too many of the rank's requests within a
 *   second).
 *
 * Observers: a connect request with RW_WIRE_REQ_OBSERVER (rank 0, @nic,
 *   @nr_nics and @session 0) attaches the peer as the job's read-only
 *   observer, as RW_ATTACH_OBSERVER does on the box: it holds no rank and
 *   any number may come. Its setup declares the model as a worker's does
 *   but only checks it against the job's run (ENOTCONN: no run yet;
 *   EEXIST: another layout), and its reply has no gradient window
 *   (@seg_shift and @nr_segs 0). The box writes every chunk's parameters
 *   into its window first (RW_IMM_PARAMS), then each chunk again
 *   (RW_IMM_RESEND) whenever its version has moved and RW_WIRE_OBSERVE_MS
 *   have passed since the last such round, or at once once it has moved
 *   by RW_WIRE_OBSERVE_LAG (so the immediate's 8 bits of version never
 *   wrap between two writes): the peer's copy is at most that period plus
 *   a write behind the box. The writes are the box's memory as it is, so
 *   a chunk a step is updating may arrive half old, half new, and is then
 *   written again with the next round. An observer may ask RW_OP_HEAD,
 *   RW_OP_SAVE and RW_OP_RESTORE; a push or another request breaks the
 *   rules.
 *
 * Immediate data: every RDMA WRITE WITH IMMEDIATE carries one chunk. The
 *   32-bit immediate (network order, as verbs send it) is RW_IMM(type,
 *   clock, chunk): bits 31-28 the type (enum rw_imm_type; 0 is never
 *   valid), 27-20 the low 8 bits of the sender's clock (a push: its
 *   iteration; fresh parameters: the chunk's version), 19-0 the chunk id.
 *   The queue pair names the worker; nothing else describes the data. A
 *   type or chunk id out of range tears the connection down.
 *
 * Control messages: once the connection is established, the worker SENDs
 *   one struct rw_wire_setup and the box answers with one struct
 *   rw_wire_setup_reply; nothing else is ever sent (every later transfer,
 *   requests and answers too, is a WRITE WITH IMMEDIATE). Both start with struct rw_wire_msg, whose
 *   @len is the whole message (at most RW_WIRE_MSG_MAX bytes).
 *   A window is a buffer its owner lets the peer write: cut into segments
 *   of 2^@seg_shift bytes (4 KiB to 1 TiB, at least one chunk), segment i
 *   registered at @segs[i].addr under key @segs[i].rkey. Byte off of the
 *   buffer is at segs[off >> seg_shift].addr + off % 2^seg_shift, so a
 *   chunk never straddles two segments. Each key covers only that
 *   segment of that peer's buffer, and only on that connection: the box
 *   gives every connection a protection domain of its own, so an RDMA
 *   access under another connection's key (another rank's, of the same
 *   job or another) or outside the segment is refused by the device and
 *   ends the connection, counted as RW_LISTEN_A_VIOL_ACCESS. The module
 *   registers its windows from 0 (segment i at i << seg_shift), so no
 *   address it sends is a kernel address; a peer must take the addresses
 *   as given (raw-verbs peers send their own virtual addresses, which is
 *   theirs to show).
 *   Setup: the model's tensors as RW_IOC_DECLARE takes them (the first
 *   declaration starts the job's run, a later one must match; @flags may
 *   hold RW_DECLARE_VERIFY), then the worker's parameter window: it covers
 *   the model's bytes (the layout's total, which the tensors alone
 *   determine) and there the box writes fresh parameters; and @inbox,
 *   one segment of RW_WIRE_INBOX_LEN bytes where the box writes its
 *   answers (all 0: this connection sends no requests).
 *   Reply: @msg.status 0 or a positive errno (what RW_IOC_DECLARE would
 *   answer; EINVAL for a window that does not fit the model, EFBIG for a
 *   model too large for the wire's windows). On 0, the run's geometry (as
 *   struct rw_setup reports it), @credits (the receives the box keeps
 *   posted for pushes on this connection), @nic and @nr_nics (the
 *   request's, echoed), @nr_own (how many chunks this connection
 *   carries: all of them without @nr_nics) and the box's
 *   gradient window for this rank: chunk c's
 *   gradient goes to bytes [c * chunk_size, c * chunk_size + its length),
 *   and the box's @inbox (RW_WIRE_INBOX_LEN bytes) for requests.
 *   After a refusal the box disconnects.
 *   Then the box writes every chunk's current parameters (RW_IMM_PARAMS,
 *   the clock field the version's low bits) and from then on answers each
 *   pushed chunk (RW_IMM_PUSH) with its parameters as soon as they are
 *   fresh for the worker (as RW_IOC_PULL defines it); each connection
 *   writes, and takes pushes of, its own chunks only, and a push of
 *   another connection's chunk ends the rank. The worker pushes
 *   every chunk once per iteration, pushes a chunk again only after its
 *   answer has arrived, and keeps fewer than @credits pushes on their way
 *   (posted, their sends not yet completed; a received push waiting for
 *   its answer holds no credit, so workers may push their chunks in any
 *   order). The box posts a receive again as it takes each push, and
 *   both ends retry a receiver-not-ready without limit. A
 *   chunk pushed again (once answered) may come before the last pushes
 *   of its iteration: the box counts it in the next and takes it once
 *   those are in. A push before the chunk's answer, or into a gradient
 *   still being summed, ends the connection.
 *
 * Requests: what RW_IOC_PARAMS_INIT and RW_IOC_CHECKPOINT do on
 *   the box, a worker asks for on a connection whose setup gave an inbox.
 *   It writes one struct rw_wire_request into the box's inbox WITH
 *   IMMEDIATE RW_IMM(RW_IMM_REQUEST, seq, 0), which spends a credit as a
 *   push does, and sends no other request before the box has written its
 *   struct rw_wire_answer (same @op and @seq; @msg.status 0 or the
 *   errno the local call would give) into the worker's inbox WITH
 *   IMMEDIATE RW_IMM(RW_IMM_ANSWER, seq, 0). The ops:
 *   - RW_OP_INIT: the run's initial parameters, the rules of
 *     RW_IOC_PARAMS_INIT (the first asker wins, before the run's first
 *     push; EBUSY after). The request carries a window over the worker's
 *     copy of the model's bytes (as the parameter window is cut; its
 *     segments remotely readable) and the chunks to set, as runs of
 *     consecutive chunks; the box checks it may, then RDMA READs those
 *     chunks straight into its parameters, and answers.
 *   - RW_OP_INIT_WAIT: answered once initial parameters are set or the
 *     run has begun (0), or after @timeout_ms (ETIMEDOUT).
 *   - RW_OP_HEAD: the run's struct rw_ckpt_head (RW_CKPT_HEAD_ONLY).
 *   - RW_OP_RESTORE: a checkpoint, the rules and checks of
 *     RW_INIT_CHECKPOINT (once, before the run's first push; a head of
 *     this run's layout, optimizer and hyper-parameters). The window
 *     covers what RW_IOC_PARAMS_INIT's data holds, the head (in the
 *     worker's byte order, which must be the box's) then the image; the
 *     box reads the head, checks it, then reads the image into the run.
 *   - RW_OP_SAVE: a checkpoint, the rules of RW_IOC_CHECKPOINT (the
 *     gate held at an iteration boundary, EBUSY for a worker an iteration
 *     in progress needs; @timeout_ms bounds the wait for the iterations
 *     in flight, 0: none). The window covers the image
 *     (its segments remotely writable); with the gate held the box
 *     RDMA WRITEs the image into it, then lets the gate go and answers
 *     with the head. Before it holds the gate, the box takes back the
 *     next iteration it admitted for each remote worker of the job with
 *     its answers, where that worker has pushed nothing of it yet.
 *   - RW_OP_STOP_AT: a move's boundary (uapi "Notices"; docs/design.md
 *     "Many boxes"), asked by rank 0 of every box of the old set once
 *     each has told it of the move, when it has pushed nothing of its
 *     next iteration: that iteration is the first the box sums no more.
 *     No window, runs or timeout. Refused EPERM for another rank,
 *     ENOENT without a move, EOPNOTSUPP under a policy other than BSP,
 *     EBUSY once the asker has pushed some of its iteration, EAGAIN
 *     before its first, EALREADY for another boundary than the one set.
 *   A malformed request ends the connection. Once initial parameters
 *   are set (by an init, or a checkpoint's restore on the box), the box
 *   writes every chunk a connection carries again, WITH IMMEDIATE
 *   RW_IMM(RW_IMM_RESEND, version, chunk): the chunk's parameters, which
 *   answer no push (a chunk in flight stays so). On the connection that
 *   asks, the answer to an RW_OP_INIT or RW_OP_INIT_WAIT that saw them
 *   set comes after those writes. RW_WIRE_PARAMS_SET in a setup reply
 *   and in an answer says whether they were set then, so a worker with
 *   several connections knows which still owe it their writes.
 *
 * Heartbeats: an end that has heard nothing from the other for a second
 *   RDMA WRITEs zero bytes, without an immediate, at the start of the
 *   other's window (the box's gradient window, or for an observer the
 *   box's inbox; the worker's parameter window). It needs no receive, changes nothing and is never answered
 *   beyond the transport's acknowledgment; both ends ask rdma_cm for an
 *   acknowledgment timeout of 4.096 us << 17 (about 0.5 s) with 7 retries,
 *   so a peer that vanished without a word fails the write within about
 *   5 s and the connection ends: the box frees the worker's rank, the
 *   worker's trainer sees ECONNRESET.
 */
#ifndef _UAPI_RACKWEAVE_H
#define _UAPI_RACKWEAVE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define RW_VERSION_MAJOR	0
#define RW_VERSION_MINOR	2
#define RW_VERSION_PATCH	0
#define RW_VERSION_CODE \
	((RW_VERSION_MAJOR << 16) | (RW_VERSION_MINOR << 8) | RW_VERSION_PATCH)
#define RW_STR_(x)		#x
#define RW_STR(x)		RW_STR_(x)
#define RW_VERSION_STRING \
	RW_STR(RW_VERSION_MAJOR) "." RW_STR(RW_VERSION_MINOR) "." \
	RW_STR(RW_VERSION_PATCH)

/* Bumped only on an incompatible change, which the rules above forbid. */
#define RW_ABI_VERSION		1

#define RW_DEV_NAME		"rackweave"
#define RW_DEV_PATH		"/dev/" RW_DEV_NAME

/* Features: what this module implements. Bits are never reused. */
#define RW_FEAT_VERSION_IOCTL	(1ULL << 0)	/* RW_IOC_VERSION */
#define RW_FEAT_GENL_STATUS	(1ULL << 1)	/* RW_CMD_STATUS_GET */
#define RW_FEAT_IB_CLIENT	(1ULL << 2)	/* RDMA devices tracked */
#define RW_FEAT_JOBS		(1ULL << 3)	/* job, policy, topo, stats */
#define RW_FEAT_LOCAL_PATH	(1ULL << 4)	/* attach, mmap, push/pull */
#define RW_FEAT_EVENTS		(1ULL << 5)	/* "events" multicast group */
#define RW_FEAT_WIRE_LISTEN	(1ULL << 6)	/* RDMA listeners, handshake */
#define RW_FEAT_PARAMS_INIT	(1ULL << 7)	/* RW_IOC_PARAMS_INIT */
#define RW_FEAT_CHECKPOINT	(1ULL << 8)	/* RW_IOC_CHECKPOINT, restore */
#define RW_FEATURES_ALL \
	(RW_FEAT_VERSION_IOCTL | RW_FEAT_GENL_STATUS | RW_FEAT_IB_CLIENT | \
	 RW_FEAT_JOBS | RW_FEAT_LOCAL_PATH | RW_FEAT_EVENTS | \
	 RW_FEAT_WIRE_LISTEN | RW_FEAT_PARAMS_INIT | RW_FEAT_CHECKPOINT)

/* Module parameter limits, shared so rwctl can explain them. */
#define RW_CHUNK_SIZE_MIN	4096U
#define RW_CHUNK_SIZE_MAX	(1U << 20)
#define RW_CHUNK_SIZE_DEFAULT	32768U
#define RW_MAX_JOBS_LIMIT	1024U
#define RW_MAX_JOBS_DEFAULT	64U

/* ---- ioctls ---- */

#define RW_IOC_MAGIC		0xB2

struct rw_version_info {
	__u32 size;		/* in: sizeof(struct rw_version_info) */
	__u32 flags;		/* in: 0; no flags defined */
	__u32 version;		/* out: RW_VERSION_CODE */
	__u32 abi;		/* out: RW_ABI_VERSION */
	__u64 features;		/* out: RW_FEAT_* */
	__u64 reserved[3];	/* in: 0; out: 0 */
};

#define RW_VERSION_INFO_SIZE	48
#define RW_VERSION_FLAGS_ALL	0U

#define RW_IOC_VERSION		_IOWR(RW_IOC_MAGIC, 0x00, struct rw_version_info)

struct rw_attach {
	__u32 size;		/* sizeof(struct rw_attach) */
	__u32 flags;		/* RW_ATTACH_* */
	char job[32];		/* RW_JOB_NAME_MAX, NUL-terminated */
	__u8 token[32];		/* RW_JOB_TOKEN_LEN */
	__u32 rank;		/* 0..workers-1; observers: 0 */
	/* RW_ATTACH_REMOTE: the box's listener; otherwise all zero */
	__u16 box_family;	/* AF_INET or AF_INET6 */
	__u16 box_port;		/* host order; 0: RW_WIRE_PORT */
	__u8 box_addr[16];	/* IPv4: the first 4 bytes, network order */
	/*
	 * RW_ATTACH_REMOTE, a box with several NICs: the listeners on its
	 * other NICs, struct rw_attach_addr[nr_box_more] at user address
	 * box_more (0..RW_WIRE_MAX_NICS - 1 of them); otherwise 0.
	 */
	__u64 box_more;
	__u32 nr_box_more;
	__u32 reserved;
};

/* One more listener of the box (RW_ATTACH_REMOTE), as in struct rw_attach. */
struct rw_attach_addr {
	__u16 family;		/* AF_INET or AF_INET6 */
	__u16 port;		/* host order; 0: RW_WIRE_PORT */
	__u8 addr[16];		/* IPv4: the first 4 bytes, network order */
	__u32 reserved;		/* 0 */
};

#define RW_ATTACH_ADDR_SIZE	24

#define RW_ATTACH_SIZE		112
#define RW_ATTACH_OBSERVER	(1U << 0)
#define RW_ATTACH_REMOTE	(1U << 1)
/*
 * With RW_ATTACH_REMOTE: box_addr and box_more name the boxes of a job
 * spread over several (docs/design.md "Many boxes"), one listener each and
 * every box of the set, instead of the NICs of one box.
 */
#define RW_ATTACH_BOXES		(1U << 2)
#define RW_ATTACH_FLAGS_ALL	(RW_ATTACH_OBSERVER | RW_ATTACH_REMOTE | \
				 RW_ATTACH_BOXES)

#define RW_IOC_ATTACH		_IOW(RW_IOC_MAGIC, 0x01, struct rw_attach)

/*
 * Element types of a tensor. A 16-bit tensor (IEEE binary16, bfloat16)
 * travels, sits in the gradient buffer and is published in the parameter
 * buffer in its type, half an f32's bytes; the box widens each gradient
 * exactly, sums in f32 in rank order, steps an f32 master copy with f32
 * optimizer state and publishes the parameters rounded to nearest even.
 * A model may mix types tensor by tensor.
 */
#define RW_DTYPE_F32		0
#define RW_DTYPE_F16		1
#define RW_DTYPE_BF16		2

/*
 * A tensor's priority: the order in which a worker host sends its pushes
 * and the box answers them, lower first, tensors of equal priority in the
 * order of declaration. All 0 (the default) is the declaration order:
 * declare a model's tensors in the order its forward pass needs them and
 * the first layers' parameters come back first (docs/design.md
 * "Priority"). A chunk holding parts of several tensors goes with its
 * first. Every rank declares the same priorities (EEXIST otherwise); they
 * change no arithmetic. At most RW_PRIORITY_MAX (EINVAL).
 */
#define RW_PRIORITY_MAX		65535U

struct rw_tensor_desc {
	__u64 key;		/* unique within the job */
	__u64 nelems;		/* >= 1 */
	__u32 dtype;		/* RW_DTYPE_* */
	__u32 priority;		/* 0..RW_PRIORITY_MAX, lower first */
};

#define RW_TENSOR_DESC_SIZE	24
#define RW_MAX_TENSORS		1048576U

struct rw_declare {
	__u32 size;		/* sizeof(struct rw_declare) */
	__u32 flags;		/* RW_DECLARE_* */
	__u32 nr_tensors;	/* 1..RW_MAX_TENSORS */
	__u32 reserved0;
	__u64 tensors;		/* user pointer: struct rw_tensor_desc[] */
	__u64 reserved[2];
};

#define RW_DECLARE_SIZE		40
#define RW_DECLARE_VERIFY	(1U << 0)
#define RW_DECLARE_FLAGS_ALL	RW_DECLARE_VERIFY

#define RW_IOC_DECLARE		_IOW(RW_IOC_MAGIC, 0x02, struct rw_declare)

struct rw_setup {
	__u32 size;		/* in: sizeof(struct rw_setup) */
	__u32 flags;		/* in: 0 */
	__u32 rank;		/* out: this worker's rank */
	__u32 nr_workers;
	__u32 chunk_size;
	__u32 nr_chunks;
	__u32 nr_tensors;
	__u32 sync;		/* enum rw_sync_mode */
	__u64 model_bytes;	/* end of the last tensor */
	__u64 grad_offset;	/* RW_MMAP_GRAD */
	__u64 grad_len;		/* nr_chunks * chunk_size */
	__u64 params_offset;	/* RW_MMAP_PARAMS */
	__u64 params_len;
	__u64 versions_offset;	/* RW_MMAP_VERSIONS */
	__u64 versions_len;	/* nr_chunks * 8, rounded up to a page */
	__u64 features;		/* RW_FEAT_* */
	__s32 node;		/* NUMA node of most of the job's memory */
	__u32 epoch;		/* gate membership epoch of this worker */
	__u64 reserved[4];	/* in: 0 */
};

#define RW_SETUP_SIZE		136
#define RW_SETUP_FLAGS_ALL	0U

#define RW_IOC_SETUP		_IOWR(RW_IOC_MAGIC, 0x03, struct rw_setup)

/* mmap offsets of the buffers (page-aligned; a mapping stays inside one). */
#define RW_MMAP_GRAD		0x0000000000ULL
#define RW_MMAP_PARAMS		0x10000000000ULL	/* 1 TiB */
#define RW_MMAP_VERSIONS	0x20000000000ULL	/* 2 TiB */

struct rw_range {
	__u64 first;		/* chunk index, or tensor key (RW_XFER_KEYS) */
	__u64 count;		/* chunks, >= 1; with RW_XFER_KEYS: 0 */
};

#define RW_RANGE_SIZE		16
#define RW_XFER_MAX_RANGES	65536U

struct rw_xfer {
	__u32 size;		/* sizeof(struct rw_xfer) */
	__u32 flags;		/* RW_XFER_* */
	__u32 nr;		/* ranges; 0: every chunk */
	__u32 timeout_ms;	/* 0: no limit */
	__u64 ranges;		/* user pointer: struct rw_range[nr] */
	__u64 reserved[2];
};

#define RW_XFER_SIZE		40
#define RW_XFER_NONBLOCK	(1U << 0)
#define RW_XFER_KEYS		(1U << 1)
#define RW_XFER_FLAGS_ALL	(RW_XFER_NONBLOCK | RW_XFER_KEYS)

#define RW_IOC_PUSH		_IOW(RW_IOC_MAGIC, 0x04, struct rw_xfer)
#define RW_IOC_PULL		_IOW(RW_IOC_MAGIC, 0x05, struct rw_xfer)
#define RW_IOC_PUSHPULL		_IOW(RW_IOC_MAGIC, 0x06, struct rw_xfer)

/*
 * RW_IOC_PARAMS_INIT (struct rw_params_init, in): a run's initial
 * parameters. Every run starts from all-zero parameters unless an attached
 * worker (any rank; not an observer, which may only restore a checkpoint:
 * RW_INIT_CHECKPOINT below) sets them before the run's first push:
 * @data points to @len bytes laid out as the parameter buffer (@len must be
 * its params_len; chunk c at c * chunk_size), and the chunks @ranges select
 * (as for RW_IOC_PUSH, RW_INIT_KEYS for tensor keys; @nr 0: every chunk)
 * are copied in; the others stay zero. The first worker to ask sets them,
 * once per run: a second request, or one after the first push of the run
 * by anyone, fails with EBUSY and changes nothing. Pushes that come while
 * the copy runs wait for it. Every pull of the run then sees the initial
 * values until the first step. With RW_INIT_WAIT (no data, no ranges) the
 * call instead waits until a worker has set them or the run has begun
 * (@timeout_ms, 0: no limit; ETIMEDOUT), so the other ranks can start
 * from rank 0's values the way a broadcast would.
 * Errors: EINVAL (size, flags, reserved bytes, a range outside the model,
 * @len not params_len), ENOENT (unknown key), EBUSY (already set, or the
 * run has begun), ENOTCONN (not declared), EPERM (observer), EFAULT,
 * E2BIG (more than RW_XFER_MAX_RANGES ranges), EOPNOTSUPP (a job on
 * another box), ESTALE, ENODEV as for a transfer.
 */
struct rw_params_init {
	__u32 size;		/* sizeof(struct rw_params_init) */
	__u32 flags;		/* RW_INIT_* */
	__u32 nr;		/* ranges; 0: every chunk */
	__u32 timeout_ms;	/* RW_INIT_WAIT: 0 waits without limit */
	__u64 ranges;		/* user pointer: struct rw_range[nr] */
	__u64 data;		/* user pointer: @len bytes */
	__u64 len;		/* the parameter buffer's length */
	__u64 reserved[2];
};

#define RW_PARAMS_INIT_SIZE	56
#define RW_INIT_KEYS		RW_XFER_KEYS	/* ranges name tensor keys */
#define RW_INIT_WAIT		(1U << 2)
#define RW_INIT_CHECKPOINT	(1U << 3)	/* restore: head + image */
#define RW_INIT_FLAGS_ALL	(RW_INIT_KEYS | RW_INIT_WAIT | RW_INIT_CHECKPOINT)

#define RW_IOC_PARAMS_INIT	_IOW(RW_IOC_MAGIC, 0x07, struct rw_params_init)

/*
 * Checkpoints. A job's state is the head below, then the image: the
 * parameters (params_len bytes, as the parameter buffer; a model with a
 * 16-bit tensor keeps its f32 master copy here instead, params_len twice
 * the buffer's, each chunk's part of a tensor at twice its offset in the
 * chunk, in f32), each optimizer state array laid out the same way (nr_state of them: momentum's buffer,
 * or Adam's first then second moments), then each chunk's version (u64,
 * nr_chunks of them: the steps applied, which Adam's bias correction
 * counts from). Host byte order in the module; files keep it
 * little-endian (docs/checkpoint.md).
 *
 * RW_IOC_CHECKPOINT (struct rw_checkpoint, in/out), on an attached file
 * (a worker or an observer) of a job with a run: writes the head to @head
 * and, unless RW_CKPT_HEAD_ONLY, the image to @data (@len must be the
 * head's image_len). The image is consistent: taken between iterations.
 * The gate stops admitting new iterations, the iterations already begun
 * finish (their steps done; under BSP a worker that has not started the
 * iteration the others are in may still do it), the image is copied, and
 * the gate lets the workers go on: they are held for the copy and for the
 * iterations in flight, nothing else. @timeout_ms (0: no limit) bounds
 * the wait for those iterations: ETIMEDOUT, and the workers go on. A
 * worker may save from its own file between its last push of an
 * iteration and its next pull, not before its first push (EBUSY inside
 * one: it would wait for itself). Under BSP without backup workers its
 * save is taken at its own boundary, once its last gradients are
 * applied: the others may have pushed the next iteration meanwhile, whose
 * step waits for this worker. Under other rules, the iterations in flight
 * must not need it (EBUSY). A file attached to another box asks that box
 * (RW_OP_SAVE, "Requests"), which first takes back the admissions it gave
 * its remote workers ahead.
 * Errors: EINVAL (size, flags, reserved bytes, @len not image_len, no
 * @head), ENOTCONN (not attached, or no run), EBUSY, ETIMEDOUT,
 * ERESTARTSYS (a signal; the workers go on), EFAULT, EOPNOTSUPP (a job on
 * another box that takes no requests), ECONNRESET (its connection lost),
 * ENODEV, ESTALE.
 *
 * A restore is RW_IOC_PARAMS_INIT with RW_INIT_CHECKPOINT: @data points to
 * a head followed by an image (@len the sum), checked against the run
 * (same layout hash, chunk size, optimizer and hyper-parameters: EINVAL
 * otherwise, with nothing changed); the run then continues from those
 * parameters, optimizer state and versions, as if it had never stopped.
 * The same rules as initial parameters apply (before the first push, once
 * per run: EBUSY), except that an observer (a checkpointer such as
 * `rwctl job restore`) may restore too.
 */
#define RW_CKPT_MAGIC		0x54504b43U	/* "CKPT" little-endian */

struct rw_ckpt_head {
	__u32 magic;		/* RW_CKPT_MAGIC */
	__u32 head_len;		/* sizeof(struct rw_ckpt_head) */
	__u64 layout_hash;	/* FNV-1a 64 of the tensors and chunk size */
	__u32 nr_tensors;
	__u32 nr_chunks;
	__u32 chunk_size;
	__u32 nr_state;		/* optimizer state arrays */
	__u32 optim;		/* enum rw_optim */
	__u32 hparams[6];	/* lr, momentum, weight decay, beta1, beta2, eps
				 * (binary32 bit patterns) */
	__u32 reserved0;
	__u64 params_len;	/* nr_chunks * chunk_size, x2 with 16-bit */
	__u64 image_len;	/* (1 + nr_state) * params_len + 8 * nr_chunks */
	__u64 step;		/* the largest chunk version */
	__u64 reserved[2];
};

#define RW_CKPT_HEAD_SIZE	104

struct rw_checkpoint {
	__u32 size;		/* sizeof(struct rw_checkpoint) */
	__u32 flags;		/* RW_CKPT_* */
	__u32 timeout_ms;
	__u32 reserved0;
	__u64 head;		/* user pointer: struct rw_ckpt_head, out */
	__u64 data;		/* user pointer: the image, out */
	__u64 len;		/* bytes at @data */
	__u64 reserved[2];
};

#define RW_CHECKPOINT_SIZE	56
#define RW_CKPT_HEAD_ONLY	(1U << 0)
#define RW_CKPT_FLAGS_ALL	RW_CKPT_HEAD_ONLY

#define RW_IOC_CHECKPOINT	_IOW(RW_IOC_MAGIC, 0x08, struct rw_checkpoint)

/* ---- generic netlink ---- */

#define RW_GENL_NAME		"rackweave"
#define RW_GENL_VERSION		1

enum rw_cmd {
	RW_CMD_UNSPEC,
	RW_CMD_STATUS_GET,
	RW_CMD_JOB_NEW,
	RW_CMD_JOB_DEL,
	RW_CMD_JOB_GET,
	RW_CMD_POLICY_SET,
	RW_CMD_TOPO_GET,
	RW_CMD_STATS_GET,
	RW_CMD_EVENT,
	RW_CMD_LISTEN_ADD,
	RW_CMD_LISTEN_DEL,
	__RW_CMD_MAX
};

#define RW_CMD_MAX (__RW_CMD_MAX - 1)

#define RW_GENL_MCGRP_EVENTS	"events"

enum rw_attr {
	RW_A_UNSPEC,
	RW_A_VERSION,
	RW_A_VERSION_CODE,
	RW_A_FEATURES,
	RW_A_CPUS_ONLINE,
	RW_A_NODES,
	RW_A_DEVICES,
	RW_A_AGG_IMPL,
	RW_A_LISTENERS,
	RW_A_CONNECTIONS,
	RW_A_REMOTES,
	RW_A_MEM_BUDGET,	/* u64: bytes all runs may take (max_memory) */
	RW_A_MEM_USED,		/* u64: bytes charged to runs now */
	__RW_A_MAX
};

#define RW_A_MAX (__RW_A_MAX - 1)

/* Type of each element inside RW_A_NODES, RW_A_DEVICES, RW_A_LISTENERS. */
#define RW_A_NODES_ENTRY	1
#define RW_A_DEVICES_ENTRY	1
#define RW_A_LISTENERS_ENTRY	1
#define RW_A_CONNECTIONS_ENTRY	1
#define RW_A_REMOTES_ENTRY	1

/* Attributes of the listener commands and of RW_A_LISTENERS entries. */
enum rw_listen_attr {
	RW_LISTEN_A_UNSPEC,
	RW_LISTEN_A_ADDR,	/* binary: 4 (IPv4) or 16 (IPv6) bytes */
	RW_LISTEN_A_PORT,	/* u16, host order */
	RW_LISTEN_A_DEV,	/* string: the RDMA device; "" while down */
	RW_LISTEN_A_UP,		/* u8: 1 listening, 0 down */
	RW_LISTEN_A_REQUESTS,	/* u64: connect requests */
	RW_LISTEN_A_ACCEPTED,	/* u64 */
	RW_LISTEN_A_CONNECTED,	/* u64: its connections open now */
	RW_LISTEN_A_REF_PROTO,	/* u64 refusals: EPROTO */
	RW_LISTEN_A_REF_AUTH,	/* EACCES */
	RW_LISTEN_A_REF_CLOCK,	/* ETIMEDOUT */
	RW_LISTEN_A_REF_BUSY,	/* EBUSY */
	RW_LISTEN_A_REF_RANGE,	/* ERANGE */
	RW_LISTEN_A_REF_IN_USE,	/* EADDRINUSE */
	RW_LISTEN_A_REF_STALE,	/* ESTALE */
	RW_LISTEN_A_REF_OTHER,	/* anything else (ENOMEM...) */
	RW_LISTEN_A_PAD,
	/*
	 * u64 connections closed for a violation, each once: a message or
	 * push against the protocol ("Control messages"), or an RDMA access
	 * outside the peer's own window, which the box's device refused.
	 */
	RW_LISTEN_A_VIOL_PROTO,
	RW_LISTEN_A_VIOL_ACCESS,
	__RW_LISTEN_A_MAX
};

#define RW_LISTEN_A_MAX (__RW_LISTEN_A_MAX - 1)

/* Attributes of RW_A_CONNECTIONS entries: the box's remote workers. */
enum rw_conn_attr {
	RW_CONN_A_UNSPEC,
	RW_CONN_A_ADDR,		/* binary: the peer's 4 or 16 address bytes */
	RW_CONN_A_PORT,		/* u16: the peer's port */
	RW_CONN_A_DEV,		/* string: the box's RDMA device */
	RW_CONN_A_JOB,		/* string */
	RW_CONN_A_RANK,		/* u32 */
	RW_CONN_A_PUSHES,	/* u64: gradient chunks received */
	RW_CONN_A_WRITES,	/* u64: parameter chunks written */
	RW_CONN_A_MESSAGES,	/* u64: control messages sent and received */
	RW_CONN_A_PAD,
	RW_CONN_A_BROKEN,	/* u8 (RW_A_REMOTES only): the connection is lost */
	RW_CONN_A_OBSERVER,	/* flag: the job's observer, not rank @RANK */
	__RW_CONN_A_MAX
};

#define RW_CONN_A_MAX (__RW_CONN_A_MAX - 1)

enum rw_node_attr {
	RW_NODE_A_UNSPEC,
	RW_NODE_A_ID,
	RW_NODE_A_NR_CPUS,
	RW_NODE_A_CPULIST,
	RW_NODE_A_MEM_MB,
	__RW_NODE_A_MAX
};

#define RW_NODE_A_MAX (__RW_NODE_A_MAX - 1)

enum rw_dev_attr {
	RW_DEV_A_UNSPEC,
	RW_DEV_A_NAME,
	RW_DEV_A_NODE,
	RW_DEV_A_PORTS,
	RW_DEV_A_NODE_GUID,
	RW_DEV_A_INDEX,
	__RW_DEV_A_MAX
};

#define RW_DEV_A_MAX (__RW_DEV_A_MAX - 1)

/* Attributes of the job commands (a namespace of their own). */
enum rw_job_attr {
	RW_JOB_A_UNSPEC,
	RW_JOB_A_NAME,
	RW_JOB_A_ID,
	RW_JOB_A_WORKERS,
	RW_JOB_A_CHUNK_SIZE,
	RW_JOB_A_TOKEN,
	RW_JOB_A_SYNC,
	RW_JOB_A_STALENESS,
	RW_JOB_A_STALENESS_LO,
	RW_JOB_A_STALENESS_HI,
	RW_JOB_A_EVICT_MS,
	RW_JOB_A_OPTIM,
	RW_JOB_A_LR,
	RW_JOB_A_MOMENTUM,
	RW_JOB_A_WEIGHT_DECAY,
	RW_JOB_A_BETA1,
	RW_JOB_A_BETA2,
	RW_JOB_A_EPS,
	RW_JOB_A_FLAGS,
	RW_JOB_A_ATTACHED,
	RW_JOB_A_MAPPINGS,	/* u32 */
	RW_JOB_A_TENSORS,	/* u32 */
	RW_JOB_A_CHUNKS,	/* u32 */
	RW_JOB_A_MODEL_BYTES,	/* u64 */
	RW_JOB_A_CORES,		/* nest of RW_TOPO_A_* entries */
	RW_JOB_A_NICS,		/* nest of RW_TOPO_A_* entries */
	RW_JOB_A_CHUNK_MAP,	/* nest of RW_TOPO_A_* entries (runs) */
	RW_JOB_A_STATS,		/* nest of RW_STAT_A_* */
	RW_JOB_A_WORKER_STATS,	/* nest of entries, each RW_STAT_A_* */
	RW_JOB_A_EVENT,		/* u32, enum rw_event_kind */
	RW_JOB_A_RANK,		/* u32 */
	RW_JOB_A_DEV,		/* string */
	RW_JOB_A_QUORUM,	/* u32, BSP: gradients per step (0: all) */
	RW_JOB_A_MAX_MEMORY,	/* u64: bytes a run may take; 0: the default */
	RW_JOB_A_MEMORY_LIMIT,	/* u64: the limit in force, bytes */
	RW_JOB_A_MEMORY,	/* u64: bytes charged to the job's run now */
	RW_JOB_A_BOXES,		/* nest of RW_JOB_A_BOX entries, each RW_BOX_A_* */
	RW_JOB_A_BOX_SELF,	/* u32: this box's id in the job's set */
	RW_JOB_A_BOX_EPOCH,	/* u32: the set's epoch, >= 1 */
	RW_JOB_A_MOVE,		/* nest: the set moved to (_BOXES, _SELF, _EPOCH) */
	RW_JOB_A_CARRY_DUE,	/* u32: chunks a move gives this box, not come */
	__RW_JOB_A_MAX
};
#define RW_JOB_A_MAX (__RW_JOB_A_MAX - 1)

enum rw_sync_mode {
	RW_SYNC_BSP = 0,
	RW_SYNC_ASP = 1,
	RW_SYNC_SSP = 2,
	RW_SYNC_ADAPTIVE = 3,
	__RW_SYNC_MAX
};

enum rw_optim {
	RW_OPTIM_SGD = 0,
	RW_OPTIM_MOMENTUM = 1,
	RW_OPTIM_NESTEROV = 2,
	RW_OPTIM_ADAM = 3,
	RW_OPTIM_AVERAGE = 4,	/* parameters = mean gradient; see JOB_NEW */
	__RW_OPTIM_MAX
};

#define RW_JOB_NAME_MAX		32	/* with the terminating NUL */
#define RW_JOB_TOKEN_LEN	32
#define RW_JOB_MAX_WORKERS	256
#define RW_JOB_MAX_STALENESS	1024
#define RW_JOB_DEL_FORCE	(1U << 0)
#define RW_JOB_DEL_FLAGS_ALL	RW_JOB_DEL_FORCE

/* Type of each element inside the nests of job attributes. */
#define RW_JOB_A_ENTRY		1
/* Type of each element inside RW_JOB_A_BOXES. */
#define RW_JOB_A_BOX		1

/* A box of a job's set (RW_JOB_A_BOXES). */
enum rw_box_attr {
	RW_BOX_A_UNSPEC,
	RW_BOX_A_ID,		/* u32: 1..RW_BOX_MAX_ID */
	RW_BOX_A_ADDR,		/* binary: 4 (IPv4) or 16 (IPv6) bytes */
	RW_BOX_A_PORT,		/* u16, host order; default RW_WIRE_PORT */
	RW_BOX_A_CHUNKS,	/* u32, topology replies: chunks it owns */
	RW_BOX_A_BYTES,		/* u64, topology replies: their bytes */
	RW_BOX_A_PAD,
	__RW_BOX_A_MAX
};
#define RW_BOX_A_MAX (__RW_BOX_A_MAX - 1)

#define RW_JOB_MAX_BOXES	64	/* boxes in a job's set */
#define RW_BOX_MAX_ID		65535	/* box ids are 1..RW_BOX_MAX_ID */

enum rw_topo_attr {
	RW_TOPO_A_UNSPEC,
	RW_TOPO_A_CPU,		/* u32 */
	RW_TOPO_A_NODE,		/* u32 */
	RW_TOPO_A_NIC,		/* u32 */
	RW_TOPO_A_CHUNKS,	/* u32 */
	RW_TOPO_A_BYTES,	/* u64 */
	RW_TOPO_A_BUSY_NS,	/* u64 */
	RW_TOPO_A_FIRST,	/* u32 */
	RW_TOPO_A_COUNT,	/* u32 */
	RW_TOPO_A_TRUNCATED,	/* flag, in RW_JOB_A_CHUNK_MAP */
	RW_TOPO_A_PAD,
	__RW_TOPO_A_MAX
};
#define RW_TOPO_A_MAX (__RW_TOPO_A_MAX - 1)
#define RW_TOPO_MAX_RUNS	4096

enum rw_stat_attr {
	RW_STAT_A_UNSPEC,
	RW_STAT_A_RANK,		/* u32 */
	RW_STAT_A_ATTACHED,	/* u32, 0 or 1 */
	RW_STAT_A_LIVE,		/* u32: worker 0/1; job: live workers */
	RW_STAT_A_CLOCK,	/* u64: iterations completed */
	RW_STAT_A_PUSHES,	/* u64: push calls (job: chunk pushes) */
	RW_STAT_A_PULLS,	/* u64; a remote worker: one per iteration */
	RW_STAT_A_BYTES,	/* u64: gradient bytes pushed */
	RW_STAT_A_CHUNKS,	/* u64: chunks pushed */
	RW_STAT_A_PARKS,	/* u64 */
	RW_STAT_A_PARKED_NS,	/* u64 */
	RW_STAT_A_EVICTIONS,	/* u64 */
	RW_STAT_A_ERRORS,	/* u64: calls refused */
	RW_STAT_A_STEPS,	/* u64: chunk optimizer steps */
	RW_STAT_A_BUSY,		/* u64: pushes that found a slot in flight */
	RW_STAT_A_MIGRATIONS,	/* u64 */
	RW_STAT_A_MIN_CLOCK,	/* u64 */
	RW_STAT_A_MAX_SKEW,	/* u64 */
	RW_STAT_A_EPOCH,	/* u32 */
	RW_STAT_A_PARKED,	/* u32: workers parked now */
	RW_STAT_A_PAD,
	RW_STAT_A_LATE_DROPPED,	/* u64: gradients dropped, their step done */
	RW_STAT_A_MOVED_OUT,	/* u64: chunks given to other boxes in moves */
	RW_STAT_A_MOVED_IN,	/* u64: chunks taken from other boxes in moves */
	__RW_STAT_A_MAX
};
#define RW_STAT_A_MAX (__RW_STAT_A_MAX - 1)

enum rw_event_kind {
	RW_EVENT_JOB_NEW = 1,
	RW_EVENT_JOB_DEL = 2,
	RW_EVENT_ATTACHED = 3,
	RW_EVENT_DETACHED = 4,
	RW_EVENT_EVICTED = 5,
	RW_EVENT_DEV_ADDED = 6,
	RW_EVENT_DEV_GONE = 7,
	RW_EVENT_DECLARED = 8,
	RW_EVENT_POLICY = 9,
	__RW_EVENT_MAX
};

/* RDMA wire: see "RDMA wire" above. */
#define RW_WIRE_PORT		18515
#define RW_WIRE_MAGIC		0x31575752U	/* "RWW1" little-endian */
#define RW_WIRE_VERSION		6	/* 6: gifts, a move's chunks box to box */
#define RW_WIRE_TAG_LEN		8
#define RW_WIRE_AUTH_LEN	16
#define RW_WIRE_MAX_SKEW_S	300	/* |time_s - the box's clock| at most */
#define RW_LISTEN_MAX		16	/* listeners a box keeps */
#define RW_WIRE_MAX_NICS	8	/* connections of one attachment */

struct rw_wire_req {
	__le32 magic;		/* RW_WIRE_MAGIC */
	__u8 version;		/* RW_WIRE_VERSION */
	__u8 flags;		/* RW_WIRE_REQ_OBSERVER or 0 */
	__le16 rank;
	__le32 epoch;
	__u8 nic;		/* this connection's index, below nr_nics */
	__u8 nr_nics;		/* 0: the attachment's only connection */
	__le16 session;		/* nr_nics > 0: the attachment's, non-zero */
	__u8 job_tag[8];	/* RW_WIRE_TAG_LEN */
	__le64 nonce;
	__le64 time_s;
	__u8 auth[16];		/* RW_WIRE_AUTH_LEN */
};

#define RW_WIRE_REQ_SIZE	56

/*
 * In rw_wire_req.flags: the job's observer (rank 0, one connection), as
 * RW_ATTACH_OBSERVER attaches on the box (see "Observers").
 */
#define RW_WIRE_REQ_OBSERVER	(1U << 0)
/*
 * A box of the job's set that gives this box chunks of a move ("Gifts"):
 * @rank its box id, @epoch the set moved to, no other flag, @nic,
 * @nr_nics and @session 0.
 */
#define RW_WIRE_REQ_BOX		(1U << 1)
/* An observer's refreshes (see "Observers"). */
#define RW_WIRE_OBSERVE_MS	100
#define RW_WIRE_OBSERVE_LAG	128

struct rw_wire_rej {
	__le32 magic;		/* RW_WIRE_MAGIC */
	__u8 version;		/* RW_WIRE_VERSION */
	__u8 reserved;
	__le16 reason;		/* a positive errno */
};

#define RW_WIRE_REJ_SIZE	8

/* Control messages (see "RDMA wire"). */
#define RW_WIRE_MSG_MAX		65536
#define RW_WIRE_SEG_SHIFT_MIN	12
#define RW_WIRE_SEG_SHIFT_MAX	40

enum rw_wire_msg_type {
	RW_MSG_SETUP = 1,	/* worker -> box */
	RW_MSG_SETUP_REPLY = 2,	/* box -> worker */
	RW_MSG_REQUEST = 3,	/* worker -> box's inbox */
	RW_MSG_ANSWER = 4,	/* box -> worker's inbox */
	RW_MSG_NOTICE = 5,	/* box -> worker's inbox, at RW_WIRE_NOTICE_OFF */
	RW_MSG_GIFT = 6,	/* giving box -> taking box */
	RW_MSG_GIFT_REPLY = 7,	/* taking box -> giving box */
	__RW_MSG_TYPE_MAX
};

struct rw_wire_msg {
	__le32 magic;		/* RW_WIRE_MAGIC */
	__u8 version;		/* RW_WIRE_VERSION */
	__u8 type;		/* enum rw_wire_msg_type */
	__le16 status;		/* a reply's: 0 or a positive errno */
	__le32 len;		/* the whole message, in bytes */
	__le32 reserved;
};

struct rw_wire_seg {
	__le64 addr;
	__le32 rkey;
	__le32 reserved;
};

struct rw_wire_tensor {
	__le64 key;
	__le64 nelems;
	__le32 dtype;		/* RW_DTYPE_* */
	__le32 priority;	/* as struct rw_tensor_desc's */
};

struct rw_wire_setup {
	struct rw_wire_msg msg;	/* RW_MSG_SETUP, status 0 */
	__le32 flags;		/* RW_DECLARE_VERIFY or 0 */
	__le32 nr_tensors;	/* >= 1 */
	__le32 seg_shift;	/* the parameter window */
	__le32 nr_segs;
	struct rw_wire_seg inbox;	/* RW_WIRE_INBOX_LEN bytes, or all 0 */
	/* then struct rw_wire_seg[nr_segs], struct rw_wire_tensor[nr_tensors] */
};

struct rw_wire_setup_reply {
	struct rw_wire_msg msg;	/* RW_MSG_SETUP_REPLY */
	__le32 rank;
	__le32 nr_workers;
	__le32 sync;		/* RW_SYNC_* */
	__le32 epoch;
	__le32 chunk_size;
	__le32 nr_chunks;
	__le64 model_bytes;
	__le32 credits;
	__u8 nic;		/* the request's, echoed */
	__u8 nr_nics;		/* the request's, echoed */
	__le16 reserved;
	__le32 seg_shift;	/* the gradient window */
	__le32 nr_segs;
	__le32 nr_own;		/* the chunks this connection carries */
	__le32 flags;		/* RW_WIRE_PARAMS_SET or 0 */
	/*
	 * A job over several boxes ("Box sets" above): this box's id, the
	 * set's size, epoch and digest; all 0 when the job is whole here
	 * (and in a refusal).
	 */
	__le32 box_id;
	__le32 nr_boxes;
	__le32 box_epoch;
	__le32 reserved2;
	__le64 box_digest;
	struct rw_wire_seg inbox;	/* RW_WIRE_INBOX_LEN bytes (refusal: 0) */
	/* then struct rw_wire_seg[nr_segs] */
};

/* The ops of a request (see "Requests" above). */
enum rw_wire_op {
	RW_OP_INIT = 1,		/* initial parameters: the box reads them */
	RW_OP_INIT_WAIT = 2,	/* until initial parameters are settled */
	RW_OP_HEAD = 3,		/* the run's checkpoint head */
	RW_OP_RESTORE = 4,	/* a checkpoint: the box reads it */
	RW_OP_SAVE = 5,		/* a checkpoint: the box writes it */
	RW_OP_STOP_AT = 6,	/* a move's boundary: the asker's next iteration */
	__RW_OP_MAX
};

struct rw_wire_run {
	__le32 first;		/* chunk */
	__le32 count;		/* >= 1 */
};

struct rw_wire_request {
	struct rw_wire_msg msg;	/* RW_MSG_REQUEST, status 0 */
	__le32 op;		/* enum rw_wire_op */
	__le32 seq;		/* the answer echoes it */
	__le32 timeout_ms;	/* RW_OP_INIT_WAIT, _SAVE; 0: no (own) limit */
	__le32 nr_runs;		/* RW_OP_INIT: >= 1 */
	__le32 seg_shift;	/* RW_OP_INIT, _RESTORE, _SAVE: the window */
	__le32 nr_segs;
	__le64 at;		/* reserved, 0 */
	/* then struct rw_wire_seg[nr_segs], struct rw_wire_run[nr_runs] */
};

struct rw_wire_answer {
	struct rw_wire_msg msg;	/* RW_MSG_ANSWER; status 0 or a positive errno */
	__le32 op;		/* the request's */
	__le32 seq;		/* the request's */
	__le32 len;		/* bytes after this header */
	__le32 flags;		/* RW_WIRE_PARAMS_SET or 0 */
	/* then RW_OP_HEAD's, _SAVE's struct rw_ckpt_head (on success) */
};

/*
 * In a setup reply and an answer: the run's initial parameters were set
 * (an init or a restore) when the box wrote it. A connection whose reply
 * says so gets no RW_IMM_RESEND writes; one whose reply does not gets one
 * per chunk it carries once they are set.
 */
#define RW_WIRE_PARAMS_SET	(1U << 0)

#define RW_WIRE_MSG_SIZE	16
#define RW_WIRE_SEG_SIZE	16
#define RW_WIRE_TENSOR_SIZE	24
#define RW_WIRE_SETUP_SIZE	48
#define RW_WIRE_REPLY_SIZE	112
#define RW_WIRE_RUN_SIZE	8
#define RW_WIRE_REQUEST_SIZE	48
#define RW_WIRE_ANSWER_SIZE	32
#define RW_WIRE_NOTICE_SIZE	48
#define RW_WIRE_BOX_SIZE	24
#define RW_WIRE_INBOX_LEN	RW_WIRE_MSG_MAX
/* Where in a worker's inbox notices land: answers keep the first half. */
#define RW_WIRE_NOTICE_OFF	(RW_WIRE_INBOX_LEN / 2)
/* ...and a move's stop, apart from its move notice (uapi "Notices"). */
#define RW_WIRE_STOP_OFF	(RW_WIRE_NOTICE_OFF + RW_WIRE_INBOX_LEN / 4)

/*
 * Notices (docs/design.md "Many boxes", a move): a box writes one into a
 * worker's inbox at RW_WIRE_NOTICE_OFF WITH IMMEDIATE RW_IMM(RW_IMM_NOTICE,
 * seq, 0), @seq counting the connection's notices. RW_NOTICE_MOVE: the job
 * moves to the set that follows (@epoch, @digest as struct rw_boxset
 * digests it, @nr_boxes boxes, @stop_before 0), written once per move on
 * each connection that has an inbox, soon after the move is ordered; the
 * worker host checks the set against its digest (a bad notice ends the
 * connection) and logs it. RW_NOTICE_STOP: the move's boundary,
 * @stop_before, the first iteration no box of the old set sums (no boxes,
 * @epoch and @digest the move's), written at RW_WIRE_STOP_OFF once rank 0
 * has asked it (RW_OP_STOP_AT) and after every answer this box owes the
 * worker for the iterations before it: a push of the worker's still
 * unanswered then belongs to the boundary's iteration, and the worker
 * pushes it again to the new set. Each notice's @seq is one above the
 * connection's last, so the worker tells which of the two places holds
 * the notice an immediate announces.
 */
enum rw_wire_notice_kind {
	RW_NOTICE_MOVE = 1,
	RW_NOTICE_STOP = 2,
	__RW_NOTICE_MAX
};

struct rw_wire_box {
	__le32 id;		/* 1..RW_BOX_MAX_ID */
	__le16 family;		/* 2 (IPv4) or 10 (IPv6), as Linux numbers them */
	__le16 port;
	__u8 addr[16];		/* IPv4: the first 4 bytes, the rest 0 */
};

struct rw_wire_notice {
	struct rw_wire_msg msg;	/* RW_MSG_NOTICE, status 0 */
	__le32 kind;		/* enum rw_wire_notice_kind */
	__le32 seq;
	__le32 epoch;		/* the set moved to */
	__le32 stop_before;	/* RW_NOTICE_STOP: >= 1; else 0 */
	__le64 digest;		/* the set moved to */
	__le32 nr_boxes;	/* RW_NOTICE_MOVE: 1..RW_JOB_MAX_BOXES; else 0 */
	__le32 reserved;
	/* then struct rw_wire_box[nr_boxes] */
};

/*
 * Gifts (docs/design.md "Many boxes", a move's step 4): when a run ends
 * with a move that gives chunks of this box to others, this box connects
 * to each box that gains some (RW_WIRE_REQ_BOX) and sends RW_MSG_GIFTs,
 * each answered by an RW_MSG_GIFT_REPLY before the next. A gift offers
 * the chunks set in its map (chunk @first + i for bit i, @nr_map bits,
 * @nr_given of them set) of the model that @layout_hash, @nr_chunks,
 * @nr_state, @chunk_size and RW_GIFT_LAST_SHORT describe, for the set of
 * @epoch and @digest. Each chunk is a record of (1 + @nr_state) *
 * @chunk_size + 8 bytes (twice the arrays with RW_GIFT_HALF, a model with
 * a 16-bit tensor, whose image holds f32 masters): the chunk of each array
 * of the run's checkpoint image, then its version (le64); the records lie in chunk order from
 * byte @off of the window that follows (RDMA read access). The taker
 * checks the set, that it gains every chunk offered and has none of them
 * yet, reads the records into its carry and replies: status 0 and
 * @taken, or a positive errno (EAGAIN: its own run has not ended yet, ask
 * again; EXDEV: another set; EEXIST: another model; EINVAL: a chunk it
 * does not gain or has). Its next run starts once it has every chunk.
 */
#define RW_GIFT_LAST_SHORT	(1U << 0)
#define RW_GIFT_HALF		(1U << 1)

struct rw_wire_gift {
	struct rw_wire_msg msg;	/* RW_MSG_GIFT, status 0 */
	__le32 giver;		/* the giving box's id */
	__le32 epoch;		/* the set moved to */
	__le64 digest;		/* the set moved to */
	__le64 layout_hash;
	__le32 nr_chunks;
	__le32 nr_state;
	__le32 chunk_size;
	__le32 flags;		/* RW_GIFT_LAST_SHORT, RW_GIFT_HALF */
	__le32 first;		/* the map's first chunk */
	__le32 nr_map;		/* 1..RW_WIRE_GIFT_MAP_MAX */
	__le32 nr_given;	/* bits set in the map, >= 1 */
	__le32 seg_shift;	/* the records' window */
	__le32 nr_segs;
	__le32 reserved;
	__le64 off;		/* the first record, in the window */
	/* then struct rw_wire_seg[nr_segs], __le64 map[DIV_ROUND_UP(nr_map, 64)] */
};

struct rw_wire_gift_reply {
	struct rw_wire_msg msg;	/* RW_MSG_GIFT_REPLY: status 0 or an errno */
	__le32 taken;		/* chunks taken: the gift's @nr_given, or 0 */
	__le32 reserved;
};

#define RW_WIRE_GIFT_SIZE	88
#define RW_WIRE_GIFT_REPLY_SIZE	24
#define RW_WIRE_GIFT_MAP_MAX	65536

enum rw_imm_type {
	RW_IMM_PUSH = 1,	/* a worker's gradient for the chunk */
	RW_IMM_PARAMS = 2,	/* the box's fresh parameters of the chunk */
	RW_IMM_REQUEST = 3,	/* a request in the box's inbox (chunk 0) */
	RW_IMM_ANSWER = 4,	/* an answer in the worker's inbox (chunk 0) */
	RW_IMM_RESEND = 5,	/* the chunk's parameters set anew: no answer */
	RW_IMM_NOTICE = 6,	/* a notice in the worker's inbox (chunk 0) */
	__RW_IMM_TYPE_MAX
};

#define RW_IMM_TYPE_SHIFT	28
#define RW_IMM_CLOCK_SHIFT	20
#define RW_IMM_CLOCK_MASK	0xffU
#define RW_IMM_CHUNK_BITS	20
#define RW_IMM_CHUNK_MASK	((1U << RW_IMM_CHUNK_BITS) - 1)
#define RW_IMM(type, clock, chunk)					\
	(((__u32)(type) << RW_IMM_TYPE_SHIFT) |				\
	 (((__u32)(clock) & RW_IMM_CLOCK_MASK) << RW_IMM_CLOCK_SHIFT) |	\
	 ((__u32)(chunk) & RW_IMM_CHUNK_MASK))

/* Longest RDMA device name (IB_DEVICE_NAME_MAX) and CPU list we send. */
#define RW_DEV_NAME_MAX		64
#define RW_AGG_IMPL_NAME_MAX	32
#define RW_CPULIST_MAX		256

#endif /* _UAPI_RACKWEAVE_H */
