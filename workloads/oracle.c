// SPDX-License-Identifier: GPL-2.0
/* The data-loss oracle; the rules and why they hold are in oracle.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oracle.h"

#define PAGE		4096u
#define FILL_GEN	1
#define MAX_PRINTED	10

struct page_state {
	uint64_t wstart;
	uint64_t wdone;
	uint64_t pstart;
	uint64_t pend;
	uint64_t stale;
	uint32_t pinfl;
	uint8_t lock;
	uint8_t torn;		/* the last write overlapped a punch */
};

static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;

#define LOAD(p)		__atomic_load_n(p, __ATOMIC_SEQ_CST)
#define STORE(p, v)	__atomic_store_n(p, v, __ATOMIC_SEQ_CST)

static void store_max(uint64_t *p, uint64_t v)
{
	uint64_t old = LOAD(p);

	while (old < v && !__atomic_compare_exchange_n(p, &old, v, false,
			__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
}

static uint64_t next_event(struct oracle *o)
{
	return __atomic_add_fetch(&o->seq, 1, __ATOMIC_SEQ_CST);
}

/* ---- tags ---- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

uint64_t tag_csum(const void *page)
{
	const uint64_t *w = page;
	uint64_t h = 0x9e3779b97f4a7c15ull;
	unsigned int i;

	for (i = 0; i < PAGE / 8; i++) {
		/* the checksum field itself counts as zero */
		uint64_t v = i == offsetof(struct page_tag, csum) / 8 ? 0 : w[i];

		h = (h ^ v) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

void tag_fill_page(void *page, uint32_t file_id, uint64_t index, uint64_t gen)
{
	struct page_tag *t = page;
	uint64_t *w = page, x;
	unsigned int i;

	t->magic = TAG_MAGIC;
	t->file_id = file_id;
	t->zero = 0;
	t->page = index;
	t->gen = gen;
	x = mix(((uint64_t)file_id << 32) ^ index ^ mix(gen)) | 1;
	for (i = sizeof(*t) / 8; i < PAGE / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = x;
	}
	t->csum = tag_csum(page);
}

bool tag_is_rlwork(const void *page)
{
	const struct page_tag *t = page;

	return t->magic == TAG_MAGIC && t->csum == tag_csum(page);
}

/* ---- oracle state ---- */

struct oracle *oracle_new(uint32_t file_id, uint64_t npages)
{
	struct oracle *o;

	if (posix_memalign((void **)&o, 64, sizeof(*o)))
		return NULL;
	memset(o, 0, sizeof(*o));
	o->file_id = file_id;
	o->npages = npages;
	o->seq = FILL_GEN;
	o->pages = calloc(npages, sizeof(*o->pages));
	if (!o->pages) {
		free(o);
		return NULL;
	}
	oracle_mark_filled(o, 0, npages, FILL_GEN);
	return o;
}

void oracle_free(struct oracle *o)
{
	if (o)
		free(o->pages);
	free(o);
}

uint64_t oracle_fill_gen(struct oracle *o)
{
	(void)o;
	return FILL_GEN;
}

void oracle_mark_filled(struct oracle *o, uint64_t first, uint64_t n,
			uint64_t gen)
{
	uint64_t i;

	for (i = first; i < first + n && i < o->npages; i++) {
		STORE(&o->pages[i].wstart, gen);
		STORE(&o->pages[i].wdone, gen);
	}
}

/* ---- writes ---- */

static bool page_trylock(struct page_state *ps)
{
	return !__atomic_exchange_n(&ps->lock, (uint8_t)1, __ATOMIC_ACQUIRE);
}

static void page_unlock(struct page_state *ps)
{
	__atomic_store_n(&ps->lock, (uint8_t)0, __ATOMIC_RELEASE);
}

static uint64_t start_write(struct oracle *o, uint64_t first, uint64_t n)
{
	uint64_t gen = next_event(o), i;

	for (i = first; i < first + n; i++)
		STORE(&o->pages[i].wstart, gen);
	return gen;
}

uint64_t oracle_write_begin(struct oracle *o, uint64_t first, uint64_t n)
{
	unsigned int spins;
	uint64_t i;

	/* ascending order everywhere: no deadlock between writers */
	for (i = first; i < first + n; i++)
		for (spins = 0; !page_trylock(&o->pages[i]); spins++)
			if (spins > 100)
				sched_yield();
	return start_write(o, first, n);
}

bool oracle_write_trybegin(struct oracle *o, uint64_t first, uint64_t n,
			   uint64_t *gen)
{
	uint64_t i;

	for (i = first; i < first + n; i++) {
		if (!page_trylock(&o->pages[i])) {
			while (i-- > first)
				page_unlock(&o->pages[i]);
			return false;
		}
	}
	*gen = start_write(o, first, n);
	return true;
}

void oracle_fill(struct oracle *o, void *buf, uint64_t first, uint64_t n,
		 uint64_t gen)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		tag_fill_page((char *)buf + i * PAGE, o->file_id, first + i,
			      gen);
}

void oracle_write_end(struct oracle *o, uint64_t first, uint64_t n,
		      uint64_t gen, bool completed)
{
	struct page_state *ps;
	uint64_t i;

	for (i = first; i < first + n; i++) {
		ps = &o->pages[i];
		/* an aborted write keeps wstart > wdone: reads stay "racy" */
		if (completed) {
			/*
			 * A write racing a punch may land partly in the page
			 * the punch discards and partly in a fresh zero page:
			 * legal, and such a page is no longer all-or-nothing.
			 */
			STORE(&ps->torn, LOAD(&ps->pinfl) ||
			      LOAD(&ps->pstart) > gen || LOAD(&ps->pend) > gen);
			STORE(&ps->wdone, gen);
		}
		page_unlock(ps);
	}
}

/* ---- punches and truncates ---- */

struct oracle_punch *oracle_punch_new(uint64_t max)
{
	struct oracle_punch *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->max = max;
	p->snap = calloc(max ? max : 1, sizeof(*p->snap));
	if (!p->snap) {
		free(p);
		return NULL;
	}
	return p;
}

void oracle_punch_begin(struct oracle *o, struct oracle_punch *p,
			uint64_t first, uint64_t n)
{
	struct page_state *ps;
	uint64_t i;

	if (first > o->npages)
		first = o->npages;
	if (n > o->npages - first)
		n = o->npages - first;
	p->first = first;
	p->n = n;
	p->start = next_event(o);
	for (i = 0; i < n; i++) {
		ps = &o->pages[first + i];
		__atomic_add_fetch(&ps->pinfl, 1, __ATOMIC_SEQ_CST);
		store_max(&ps->pstart, p->start);
		p->snap[i] = LOAD(&ps->wdone);
	}
}

void oracle_punch_end(struct oracle *o, struct oracle_punch *p)
{
	uint64_t pe = next_event(o), i;
	struct page_state *ps;

	for (i = 0; i < p->n; i++) {
		ps = &o->pages[p->first + i];
		store_max(&ps->stale, p->snap[i]);
		store_max(&ps->pend, pe);
		__atomic_sub_fetch(&ps->pinfl, 1, __ATOMIC_SEQ_CST);
	}
}

/* ---- reads ---- */

struct oracle_read *oracle_read_new(uint64_t max)
{
	struct oracle_read *rd = calloc(1, sizeof(*rd));

	if (!rd)
		return NULL;
	rd->max = max;
	rd->wdone = calloc(max, sizeof(uint64_t));
	rd->stale = calloc(max, sizeof(uint64_t));
	rd->pinfl = calloc(max, sizeof(uint64_t));
	if (!rd->wdone || !rd->stale || !rd->pinfl)
		return NULL;
	return rd;
}

void oracle_read_begin(struct oracle *o, struct oracle_read *rd,
		       uint64_t first, uint64_t n)
{
	struct page_state *ps;
	uint64_t i;

	rd->first = first;
	rd->n = n;
	rd->start = next_event(o);
	for (i = 0; i < n; i++) {
		ps = &o->pages[first + i];
		rd->pinfl[i] = LOAD(&ps->pinfl);
		rd->wdone[i] = LOAD(&ps->wdone);
		rd->stale[i] = LOAD(&ps->stale);
	}
}

static void report(struct oracle *o, uint64_t page, const char *how,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void report(struct oracle *o, uint64_t page, const char *how,
		   const char *fmt, ...)
{
	uint64_t n = __atomic_add_fetch(&o->errors, 1, __ATOMIC_SEQ_CST);
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&err_lock);
	if (n == 1)
		snprintf(o->first_error, sizeof(o->first_error),
			 "offset %" PRIu64 " (page %" PRIu64 ", %s): %s",
			 page * PAGE, page, how, msg);
	if (n <= MAX_PRINTED)
		fprintf(stderr, "rlwork: verify error: offset %" PRIu64
			" (page %" PRIu64 ", %s): %s\n", page * PAGE, page,
			how, msg);
	pthread_mutex_unlock(&err_lock);
}

static bool all_zero(const void *p, size_t len)
{
	const uint64_t *w = p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		if (w[i])
			return false;
	return true;
}

struct after {
	uint64_t wstart, pstart, pend, pinfl;
};

static unsigned int check_page(struct oracle *o, struct oracle_read *rd,
			       uint64_t i, const void *page, size_t valid,
			       const char *how)
{
	const struct page_tag *t = page;
	struct page_state *ps = &o->pages[rd->first + i];
	uint64_t p = rd->first + i, wdone = rd->wdone[i], csum;
	uint64_t stale = rd->stale[i];
	struct after a;
	bool racy;

	a.pinfl = LOAD(&ps->pinfl);
	a.wstart = LOAD(&ps->wstart);
	a.pstart = LOAD(&ps->pstart);
	a.pend = LOAD(&ps->pend);
	racy = a.wstart > wdone || rd->pinfl[i] || a.pinfl ||
	       a.pstart > rd->start || a.pend > rd->start || LOAD(&ps->torn);
	__atomic_add_fetch(&o->checked, 1, __ATOMIC_RELAXED);

	if (all_zero(page, valid)) {
		if (wdone > a.pstart && wdone > a.pend && !rd->pinfl[i] && !a.pinfl) {
			report(o, p, how,
			       "expected generation >= %" PRIu64 " (a completed write, no punch since), found %s",
			       wdone, valid < PAGE ? "end of file" : "zeros");
			return 1;
		}
		return 0;
	}
	if (valid < PAGE || t->magic != TAG_MAGIC ||
	    (csum = tag_csum(page)) != t->csum) {
		if (racy) {
			__atomic_add_fetch(&o->racy, 1, __ATOMIC_RELAXED);
			return 0;
		}
		if (valid < PAGE)
			report(o, p, how,
			       "expected a whole page, found %zu bytes of data then end of file",
			       valid);
		else if (t->magic != TAG_MAGIC)
			report(o, p, how,
			       "expected a tag of file %u page %" PRIu64 ", found untagged data %016" PRIx64 " %016" PRIx64,
			       o->file_id, p, ((const uint64_t *)page)[0],
			       ((const uint64_t *)page)[1]);
		else
			report(o, p, how,
			       "expected checksum %016" PRIx64 " of the data, found %016" PRIx64 " in the tag of file %u page %" PRIu64 " generation %" PRIu64,
			       csum, t->csum, t->file_id, t->page, t->gen);
		return 1;
	}
	if (t->file_id != o->file_id || t->page != p) {
		report(o, p, how,
		       "expected the tag of file %u page %" PRIu64 ", found file %u page %" PRIu64 " generation %" PRIu64,
		       o->file_id, p, t->file_id, t->page, t->gen);
		return 1;
	}
	if (t->gen > a.wstart) {
		report(o, p, how,
		       "expected generation <= %" PRIu64 " (newest write started), found %" PRIu64,
		       a.wstart, t->gen);
		return 1;
	}
	if (t->gen < wdone) {
		report(o, p, how,
		       "expected generation >= %" PRIu64 " (completed before the read), found older %" PRIu64,
		       wdone, t->gen);
		return 1;
	}
	if (t->gen <= stale) {
		report(o, p, how,
		       "expected zeros or generation > %" PRIu64 " (a punch/truncate completed before the read), found stale %" PRIu64,
		       stale, t->gen);
		return 1;
	}
	return 0;
}

unsigned int oracle_read_end(struct oracle *o, struct oracle_read *rd,
			     const void *buf, size_t valid, const char *how)
{
	unsigned int errors = 0;
	uint64_t i;
	size_t v;

	for (i = 0; i < rd->n; i++) {
		v = valid > i * PAGE ? valid - i * PAGE : 0;
		if (v > PAGE)
			v = PAGE;
		errors += check_page(o, rd, i, (const char *)buf + i * PAGE,
				     v, how);
	}
	return errors;
}

/* ---- the final pass ---- */

#define CHUNK_PAGES	256

static int verify_pass(struct oracle *o, int fd, uint64_t size,
		       struct oracle_read *rd, void *buf, const char *how)
{
	uint64_t off, n;
	ssize_t ret;

	for (off = 0; off < size; off += n * PAGE) {
		n = (size - off) / PAGE;
		if (n > CHUNK_PAGES)
			n = CHUNK_PAGES;
		if (!n)
			break;
		oracle_read_begin(o, rd, off / PAGE, n);
		ret = pread(fd, buf, n * PAGE, off);
		if (ret < 0) {
			fprintf(stderr, "rlwork: verify: read at %" PRIu64
				": %s\n", off, strerror(errno));
			return -1;
		}
		oracle_read_end(o, rd, buf, ret, how);
	}
	return 0;
}

int oracle_verify_file(struct oracle *o, int fd, uint64_t size,
		       const char *how)
{
	struct oracle_read *rd = oracle_read_new(CHUNK_PAGES);
	void *buf;
	int ret;

	if (!rd || posix_memalign(&buf, PAGE, CHUNK_PAGES * PAGE))
		return -1;
	if (size > o->npages * PAGE)
		size = o->npages * PAGE;
	ret = verify_pass(o, fd, size, rd, buf, how);
	free(buf);
	free(rd->wdone);
	free(rd->stale);
	free(rd->pinfl);
	free(rd);
	return ret;
}

/* ---- test-only corruption ---- */

int oracle_inject(struct oracle *o, const char *path, unsigned int mode,
		  uint64_t size, char *msg, size_t len)
{
	static const char *const names[] = { "none", "stale", "tag",
					     "checksum", "lost" };
	struct oracle_punch *pn;
	uint64_t page, gen;
	char buf[PAGE] __attribute__((aligned(64)));
	struct stat st;
	int fd, ret = 0;

	fd = open(path, O_RDWR);
	if (fd < 0 || fstat(fd, &st))
		return snprintf(msg, len, "%s: %s", path, strerror(errno)), -1;
	if ((uint64_t)st.st_size < size)
		size = st.st_size;
	if (size / PAGE == 0) {
		close(fd);
		return snprintf(msg, len, "%s: no page to corrupt", path), -1;
	}
	/*
	 * First a clean, recorded write of the page, so what follows is
	 * provably wrong whatever the workload left there (an unwritten or
	 * torn page, a recent punch); then the unrecorded damage.
	 */
	page = size / PAGE / 2;
	gen = oracle_write_begin(o, page, 1);
	tag_fill_page(buf, o->file_id, page, gen);
	ret = pwrite(fd, buf, PAGE, page * PAGE) == PAGE ? 0 : -1;
	oracle_write_end(o, page, 1, gen, !ret);
	switch (ret ? 0 : mode) {
	case 1:	/* stale: a recorded punch, then the old data back */
		pn = oracle_punch_new(1);
		oracle_punch_begin(o, pn, page, 1);
		ret = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				page * PAGE, PAGE);
		oracle_punch_end(o, pn);
		free(pn->snap);
		free(pn);
		break;
	case 2:	/* a valid tag of the wrong page */
		tag_fill_page(buf, o->file_id, page + 1, gen);
		break;
	case 3:	/* one payload bit flipped */
		buf[PAGE - 1] ^= 1;
		break;
	case 4:	/* the data of a completed write disappears */
		ret = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				page * PAGE, PAGE);
		break;
	}
	if (!ret && mode != 4 && pwrite(fd, buf, PAGE, page * PAGE) != PAGE)
		ret = -1;
	if (ret)
		snprintf(msg, len, "inject %s at offset %" PRIu64 ": %s",
			 names[mode], page * PAGE, strerror(errno));
	else
		snprintf(msg, len,
			 "injected %s corruption at offset %" PRIu64
			 " (page %" PRIu64 ", generation %" PRIu64 ")",
			 names[mode], page * PAGE, page, gen);
	close(fd);
	return ret ? -1 : 0;
}
