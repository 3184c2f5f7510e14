/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What dio.c shares with its io_uring engine (dio-uring.c): the options,
 * one IO from submission to completion, and the steps around issuing it.
 */
#ifndef RLWORK_DIO_H
#define RLWORK_DIO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "iopat.h"

struct worker;

struct dio_opts {
	struct iopat_opts io;
	unsigned int engine;
	uint64_t iodepth;
	uint64_t fault_threads;
	uint64_t buffered_threads;
	uint64_t mprotect_threads;
	bool fault_random;
	bool fault_write;
	bool sparse;
	bool nowait;
	bool iopoll;
	bool force_async;
	bool split_pages;
	bool touch_inflight;
	uint64_t buf_offset;
};

enum { ENGINE_SYNC, ENGINE_URING };

enum { OP_READ, OP_WRITE, OP_FAULT, OP_BREAD, OP_MPROTECT };
enum { C_SHORT, C_NOWAIT_AGAIN };

/* one IO, as an async engine would carry it from submission to completion */
struct dio_io {
	uint64_t off;
	bool write;
	uint64_t gen;
	uint64_t t0;
	void *buf;
	struct oracle_read *rd;	/* the read's oracle snapshot */
	bool new;		/* filled since the last submission */
};

/* the oracle's side of an IO: before it is issued, and once it is done */
void dio_prepare(struct worker *w, struct dio_io *io);
void dio_complete(struct worker *w, struct dio_io *io, ssize_t ret);

void dio_thread_uring(struct worker *w);

#endif
