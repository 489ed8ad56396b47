/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What dev-check's files share: the TAP reporting, the raw calls on
 * /dev/rackweave, a worker's mappings, the model the job is declared with,
 * and the subcommands main() dispatches to.
 */
#ifndef RW_TESTS_VM_DEV_CHECK_H
#define RW_TESTS_VM_DEV_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <rackweave/uapi.h>
#include "../../uapi/rackweave_sizes.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define CHUNK_SIZE	4096U		/* what the job is created with */
#define NR_WORKERS	2U
#define LR		0.01f		/* the job's default learning rate */
#define ITERATIONS	3

/* The run's settings, from main(), and whether any check failed. */
extern const char *mode;	/* prefix of every TAP description */
extern int failed;
extern const char *job;
extern uint8_t token[RW_JOB_TOKEN_LEN];
extern size_t page;

/* The model: its layout is described in dev-common.c. */
#define MODEL_TENSORS	3U
#define MODEL_BYTES	16128ULL
#define MODEL_CHUNKS	4U
extern const struct rw_tensor_desc model[MODEL_TENSORS];
extern const uint64_t model_off[MODEL_TENSORS];

/* ---- reporting ---- */

__attribute__((format(printf, 2, 3)))
void check(int cond, const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
void expect(int got, int want, const char *fmt, ...);
const char *errname(int ret);
int sys(int ret);

/* ---- raw calls: each returns 0 or -errno ---- */

int dev_open(void);
void attach_init(struct rw_attach *a, const char *name, uint32_t rank,
		 uint32_t flags);
int attach_raw(int fd, struct rw_attach *a);
int attach(int fd, uint32_t rank, uint32_t flags);
void declare_init(struct rw_declare *d, const struct rw_tensor_desc *t,
		  uint32_t nr, uint32_t flags);
int declare_raw(int fd, struct rw_declare *d);
int declare(int fd, const struct rw_tensor_desc *t, uint32_t nr,
	    uint32_t flags);
int setup(int fd, struct rw_setup *s);
void xfer_init(struct rw_xfer *x, const struct rw_range *r, uint32_t nr,
	       uint32_t flags);
int xfer_raw(int fd, unsigned long cmd, struct rw_xfer *x);
int xfer(int fd, unsigned long cmd, const struct rw_range *r,
	 uint32_t nr, uint32_t flags, uint32_t timeout_ms);
int try_map(int fd, uint64_t off, size_t len, int prot, int flags);
int version_works(int fd);
uint64_t fnv1a(const void *p, size_t len);
void read_token(const char *path);

/* ---- a worker: its file, its geometry and its three mappings ---- */

struct worker {
	int fd;
	uint32_t rank;
	struct rw_setup s;
	float *grad;
	const float *params;
	const volatile uint64_t *versions;
};

int worker_map(struct worker *w, int observer);
void worker_unmap(struct worker *w);

/* ---- the gradient each rank writes ---- */

float grad_of(uint32_t rank, uint64_t i, int iter);
void write_grads(struct worker *w, int iter);

/* ---- subcommands: each returns the exit status ---- */

int bad_input(void);
int hold(uint32_t rank, int pull);
int observer(void);

#endif /* RW_TESTS_VM_DEV_CHECK_H */
