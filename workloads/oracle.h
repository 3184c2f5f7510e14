/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data-loss oracle.
 *
 * Every 4 KiB page rlwork writes carries a tag: file id, page index,
 * generation and a checksum over the whole page; the rest of the page is a
 * pattern derived from the tag. The generation of a write is the value of a
 * global event counter when the write started, so generations order writes
 * in time, across threads.
 *
 * Each role records, per page, when its operations started and completed:
 *
 *	wstart	generation of the newest write that started
 *	wdone	generation of the newest write that completed
 *	pstart	event number of the newest punch/truncate that started
 *	pend	event number of the newest punch/truncate that completed
 *	pinfl	punches/truncates of the page in flight
 *	stale	newest generation a completed punch has made stale: the newest
 *		write that had completed when the punch started
 *
 * Writes to one page are serialized by the oracle (a per-page lock held from
 * the generation's assignment to its completion), so wdone only grows. Two
 * overlapping writes racing have no defined result anyway; punches, reads
 * and faults are never serialized: those are the races under test.
 *
 * A read of page p snapshots D = wdone, L = stale (and pinfl) before it
 * starts, and wstart/pstart/pend/pinfl after it returns. Then, provably:
 *
 *  - a valid tag of another file or page is an error;
 *  - a valid tag with generation g > wstart(after) is an error (never written);
 *  - g < D is an error: a write that completed before the read started was
 *    lost (only a punch can remove it, and a punch leaves zeros);
 *  - g <= L is an error: the data was written before a punch of the page
 *    started, that punch completed before the read started, and a punch
 *    leaves zeros (this is the stale-data race of faults vs hole punching);
 *  - zeros are an error when the write D completed before the read started
 *    and no punch of the page was in flight, or started or ended after D
 *    started: nothing could have removed D;
 *  - anything else (bad checksum, partly zero, garbage) is an error unless a
 *    write or a punch of the page was in flight during the read (a torn copy
 *    is legal then), or the page's last write itself overlapped a punch (a
 *    store through a mapping can land partly in the folio the punch drops
 *    and partly in a fresh one); those reads are counted as "racy".
 *
 * Bytes past a short read (EOF after a truncate) count as zeros.
 */
#ifndef RLWORK_ORACLE_H
#define RLWORK_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TAG_MAGIC	0x31474154574c52ull	/* "RLWTAG1" little-endian */

struct page_tag {
	uint64_t magic;
	uint32_t file_id;
	uint32_t zero;
	uint64_t page;
	uint64_t gen;
	uint64_t csum;
};

struct page_state;

struct oracle {
	uint64_t seq __attribute__((aligned(64)));	/* global event counter */
	char pad[64 - sizeof(uint64_t)];
	uint32_t file_id;
	uint64_t npages;
	struct page_state *pages;
	uint64_t checked;
	uint64_t racy;
	uint64_t errors;
	char first_error[512];
};

/* per-thread snapshots, sized for the largest read/punch of the thread */
/* what a read saw of its pages when it started (oracle_read_begin) */
struct oracle_read {
	uint64_t first, n, max;
	uint64_t start;		/* the event counter at the start */
	uint64_t *wdone;	/* per page: newest write completed by then */
	uint64_t *stale;	/* newest generation a completed punch removed */
	uint64_t *pinfl;	/* punches in flight */
};

struct oracle_punch {
	uint64_t first, n, max;
	uint64_t start;		/* the event counter at the start */
	uint64_t *snap;		/* per page: newest write completed by then */
};

struct oracle *oracle_new(uint32_t file_id, uint64_t npages);
void oracle_free(struct oracle *o);

/* a page's tag and pattern; also used without an oracle to fill files */
void tag_fill_page(void *page, uint32_t file_id, uint64_t index, uint64_t gen);
uint64_t tag_csum(const void *page);
bool tag_is_rlwork(const void *page);

/* writes: begin (locks the pages, returns the generation), fill, end */
uint64_t oracle_write_begin(struct oracle *o, uint64_t first, uint64_t n);
bool oracle_write_trybegin(struct oracle *o, uint64_t first, uint64_t n,
			   uint64_t *gen);
void oracle_fill(struct oracle *o, void *buf, uint64_t first, uint64_t n,
		 uint64_t gen);
void oracle_write_end(struct oracle *o, uint64_t first, uint64_t n,
		      uint64_t gen, bool completed);
/* the initial contents: every page written, generation 1 */
void oracle_mark_filled(struct oracle *o, uint64_t first, uint64_t n,
			uint64_t gen);
uint64_t oracle_fill_gen(struct oracle *o);

/* punches and truncates (pages [first, first + n)) */
struct oracle_punch *oracle_punch_new(uint64_t max);
void oracle_punch_begin(struct oracle *o, struct oracle_punch *p,
			uint64_t first, uint64_t n);
void oracle_punch_end(struct oracle *o, struct oracle_punch *p);

/* reads: valid = bytes the read returned (the rest count as zeros) */
struct oracle_read *oracle_read_new(uint64_t max);
void oracle_read_begin(struct oracle *o, struct oracle_read *rd,
		       uint64_t first, uint64_t n);
/* returns the number of errors found */
unsigned int oracle_read_end(struct oracle *o, struct oracle_read *rd,
			     const void *buf, size_t valid, const char *how);

/* final pass over the whole file after the threads stopped */
int oracle_verify_file(struct oracle *o, int fd, uint64_t size,
		       const char *how);

/* test-only: corrupt a page behind the workload's back (second fd) */
int oracle_inject(struct oracle *o, const char *path, unsigned int mode,
		  uint64_t size, char *msg, size_t len);

#endif
