// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the oracle's rules (oracle.h), TAP output: each case is a
 * deterministic sequence of recorded writes, punches and reads, and what a
 * read returned; the oracle must flag exactly the provable errors.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

#define PAGE 4096
#define FILE_ID 7

static int test_no, failed;
static struct oracle *o;
static struct oracle_read *rd;
static struct oracle_punch *pn;
static char page[PAGE] __attribute__((aligned(64)));

static void ok(bool cond, const char *what)
{
	test_no++;
	failed += !cond;
	printf("%sok %d - %s\n", cond ? "" : "not ", test_no, what);
}

static uint64_t write_page(uint64_t p)
{
	uint64_t gen = oracle_write_begin(o, p, 1);

	oracle_write_end(o, p, 1, gen, true);
	return gen;
}

static void punch_page(uint64_t p)
{
	oracle_punch_begin(o, pn, p, 1);
	oracle_punch_end(o, pn);
}

/* a complete read of page p that returned buf: the errors it found */
static unsigned int read_page(uint64_t p, const void *buf, size_t valid)
{
	oracle_read_begin(o, rd, p, 1);
	return oracle_read_end(o, rd, buf, valid, "test read");
}

static const void *tag(uint64_t p, uint64_t gen)
{
	tag_fill_page(page, FILE_ID, p, gen);
	return page;
}

static const void *zeros(void)
{
	memset(page, 0, PAGE);
	return page;
}

int main(void)
{
	uint64_t g1, g2, g3;
	unsigned int e;

	o = oracle_new(FILE_ID, 8);
	rd = oracle_read_new(1);
	pn = oracle_punch_new(8);
	printf("1..16\n");

	ok(read_page(0, tag(0, 1), PAGE) == 0, "the initial data reads back");
	g1 = write_page(0);
	ok(read_page(0, tag(0, g1), PAGE) == 0, "a completed write reads back");
	ok(read_page(0, tag(0, 1), PAGE) == 1,
	   "older data after a completed write is an error (lost write)");
	ok(read_page(0, zeros(), PAGE) == 1,
	   "zeros after a completed write, no punch, is an error");
	ok(strstr(o->first_error, "offset 0") &&
	   strstr(o->first_error, "expected") &&
	   strstr(o->first_error, "found"),
	   "the error names offset, expected and found");

	punch_page(0);
	ok(read_page(0, zeros(), PAGE) == 0, "zeros after a completed punch");
	ok(read_page(0, tag(0, g1), PAGE) == 1,
	   "pre-punch data read after the punch completed is an error (stale)");

	/* the completion-ordering rule: the read began before the punch ended */
	g2 = write_page(1);
	oracle_read_begin(o, rd, 1, 1);
	punch_page(1);
	ok(oracle_read_end(o, rd, tag(1, g2), PAGE, "test read") == 0,
	   "pre-punch data in a read that began before the punch completed is legal");
	ok(read_page(1, tag(1, g2), PAGE) == 1,
	   "the same data in a read that began after it is stale");

	g3 = write_page(1);
	ok(read_page(1, tag(1, g3), PAGE) == 0 &&
	   read_page(1, zeros(), PAGE) == 1,
	   "a rewrite after the punch must be seen, not zeros");

	/* torn copies are legal only while a write or punch is in flight */
	memcpy(page, tag(2, 1), PAGE);
	memset(page + 100, 0, 200);
	oracle_read_begin(o, rd, 2, 1);
	g1 = oracle_write_begin(o, 2, 1);
	e = oracle_read_end(o, rd, page, PAGE, "test read");
	oracle_write_end(o, 2, 1, g1, true);
	ok(e == 0, "a torn page during an in-flight write is not an error");
	memcpy(page, tag(2, g1), PAGE);
	page[PAGE - 1] ^= 1;
	ok(read_page(2, page, PAGE) == 1, "a bad checksum with nothing in flight is an error");
	ok(read_page(2, tag(3, g1), PAGE) == 1, "another page's tag is an error");
	tag_fill_page(page, FILE_ID + 1, 2, g1);
	ok(read_page(2, page, PAGE) == 1, "another file's tag is an error");
	ok(read_page(2, tag(2, g1 + 1000), PAGE) == 1,
	   "a generation never written is an error");

	/* truncate: bytes past a short read count as zeros */
	e = read_page(4, tag(4, 1), 0);
	oracle_punch_begin(o, pn, 4, 4);
	oracle_punch_end(o, pn);
	ok(e == 1 && read_page(4, tag(4, 1), 0) == 0,
	   "end of file is an error before a truncate, fine after it");

	printf("# %llu errors counted, %llu racy reads\n",
	       (unsigned long long)o->errors, (unsigned long long)o->racy);
	return failed ? 1 : 0;
}
