/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * Compile-time pins of the uapi layout, for user space (C11). The module
 * pins the same numbers with BUILD_BUG_ON in kmod/chardev.c.
 */
#ifndef _UAPI_RACKWEAVE_SIZES_H
#define _UAPI_RACKWEAVE_SIZES_H

#include <stddef.h>
/* Include after the uapi header (<rackweave.h> or <rackweave/uapi.h>). */

#define RW_PIN_(cond, what) _Static_assert(cond, what)

RW_PIN_(sizeof(struct rw_version_info) == RW_VERSION_INFO_SIZE, "version");
RW_PIN_(sizeof(struct rw_attach) == RW_ATTACH_SIZE, "attach");
RW_PIN_(offsetof(struct rw_attach, rank) == 72, "attach.rank");
RW_PIN_(offsetof(struct rw_attach, box_more) == 96, "attach.box_more");
RW_PIN_(sizeof(struct rw_attach_addr) == RW_ATTACH_ADDR_SIZE, "attach addr");
RW_PIN_(sizeof(struct rw_tensor_desc) == RW_TENSOR_DESC_SIZE, "tensor");
RW_PIN_(sizeof(struct rw_declare) == RW_DECLARE_SIZE, "declare");
RW_PIN_(offsetof(struct rw_declare, tensors) == 16, "declare.tensors");
RW_PIN_(sizeof(struct rw_setup) == RW_SETUP_SIZE, "setup");
RW_PIN_(offsetof(struct rw_setup, node) == 96, "setup.node");
RW_PIN_(sizeof(struct rw_range) == RW_RANGE_SIZE, "range");
RW_PIN_(sizeof(struct rw_xfer) == RW_XFER_SIZE, "xfer");
RW_PIN_(offsetof(struct rw_xfer, ranges) == 16, "xfer.ranges");
RW_PIN_(_IOC_SIZE(RW_IOC_ATTACH) == RW_ATTACH_SIZE, "ioc attach");
RW_PIN_(_IOC_SIZE(RW_IOC_DECLARE) == RW_DECLARE_SIZE, "ioc declare");
RW_PIN_(_IOC_SIZE(RW_IOC_SETUP) == RW_SETUP_SIZE, "ioc setup");
RW_PIN_(_IOC_SIZE(RW_IOC_PUSHPULL) == RW_XFER_SIZE, "ioc xfer");
RW_PIN_(sizeof(struct rw_params_init) == RW_PARAMS_INIT_SIZE, "params init");
RW_PIN_(_IOC_SIZE(RW_IOC_PARAMS_INIT) == RW_PARAMS_INIT_SIZE, "ioc params init");
RW_PIN_(sizeof(struct rw_ckpt_head) == RW_CKPT_HEAD_SIZE, "ckpt head");
RW_PIN_(offsetof(struct rw_ckpt_head, params_len) == 64, "ckpt head.params_len");
RW_PIN_(sizeof(struct rw_checkpoint) == RW_CHECKPOINT_SIZE, "checkpoint");
RW_PIN_(_IOC_SIZE(RW_IOC_CHECKPOINT) == RW_CHECKPOINT_SIZE, "ioc checkpoint");
RW_PIN_(sizeof(struct rw_wire_req) == RW_WIRE_REQ_SIZE, "wire req");
RW_PIN_(offsetof(struct rw_wire_req, nic) == 12, "wire req.nic");
RW_PIN_(offsetof(struct rw_wire_req, job_tag) == 16, "wire req.job_tag");
RW_PIN_(offsetof(struct rw_wire_req, auth) == 40, "wire req.auth");
RW_PIN_(sizeof(struct rw_wire_rej) == RW_WIRE_REJ_SIZE, "wire rej");
RW_PIN_(sizeof(struct rw_wire_msg) == RW_WIRE_MSG_SIZE, "wire msg");
RW_PIN_(sizeof(struct rw_wire_seg) == RW_WIRE_SEG_SIZE, "wire seg");
RW_PIN_(sizeof(struct rw_wire_tensor) == RW_WIRE_TENSOR_SIZE, "wire tensor");
RW_PIN_(sizeof(struct rw_wire_setup) == RW_WIRE_SETUP_SIZE, "wire setup");
RW_PIN_(sizeof(struct rw_wire_setup_reply) == RW_WIRE_REPLY_SIZE,
	"wire setup reply");
RW_PIN_(offsetof(struct rw_wire_setup_reply, nic) == 52, "wire reply.nic");

#undef RW_PIN_

#endif /* _UAPI_RACKWEAVE_SIZES_H */
