// SPDX-License-Identifier: GPL-2.0
/*
 * insn-profile: a QEMU TCG plugin that counts the guest instructions (and
 * the atomic ones among them) executed in each translated block, inside
 * the measured windows that rlwork marks (workloads/insn-mark.h), and
 * writes one file per window: every block's start address with its
 * instructions and atomics. runners/boot loads it in cost mode when the
 * matrix says `profile insn`; `rlstat profile` resolves the addresses to
 * kernel functions (docs/profile.md).
 *
 *   qemu-system-x86_64 ... -plugin insn-profile.so,dir=DIR[,count=insn|block]
 *
 * DIR/w<seq>-<tag>.profile: a window that ended, written whole (a
 * temporary file renamed), before the guest runs the instruction after
 * the end marker; DIR/w<seq>-<tag>.partial: the window open when QEMU
 * exited. <seq> counts windows from 1, <tag> is the window's 32-bit tag
 * in hex (the bit markers before its start marker).
 *
 * The counting is inline adds into per-block counters, no callback:
 * with count=insn (the default) one per instruction executed and one more
 * per atomic one (decided from its bytes when it is translated). Blocks
 * with the same address, length and atomics share counters, so the
 * retranslations of a block (after QEMU flushes its code cache) add up.
 * The markers alone get a callback, which snapshots every counter at the
 * start and takes the differences at the end: the window holds the start
 * marker and what follows it, up to the instruction before the end marker.
 *
 * count=block adds once per block execution and multiplies by the block's
 * length and atomics: a block that QEMU leaves half way (a fault, or an
 * I/O access that icount makes the block's last) is then counted whole,
 * which made a 4 KiB direct read 4.0 instructions per op (0.07%) costlier
 * than the guest clock; count=insn matched it exactly, for about the same
 * host time (make bench-profile).
 *
 * The counters are per block, not per vCPU, and the adds are not atomic:
 * exact because cost mode runs every vCPU on one host thread (icount has
 * no multi-threaded TCG), not under -accel tcg,thread=multi.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qemu-plugin-api.h"
#include "insn-mark.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* One counter: the blocks of one address, length and atomics. */
struct blk {
	uint64_t count;		/* executions; the inline add's target */
	uint64_t base;		/* count when the open window started */
	uint64_t icount;	/* count=insn: instructions executed */
	uint64_t ibase;
	uint64_t acount;	/* count=insn: atomics executed */
	uint64_t abase;
	uint64_t vaddr;
	uint32_t ninsns;
	uint32_t natomic;
};

/*
 * Counters live in chunks that never move: the translated code holds
 * their addresses. An open-addressing table finds them by key.
 */
#define CHUNK	4096
static struct blk **chunks;
static size_t nchunks, nblks;
static struct blk **table;
static size_t table_size;	/* a power of two */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *outdir;
/*
 * count=insn (the default): an inline add per instruction (and one more
 * per atomic one), exact where QEMU leaves a block half way; count=block:
 * one per block execution, times the block's length.
 */
static bool per_insn = true;

static struct {
	bool open;
	uint32_t bits, nbits;	/* the tag being received */
	uint32_t tag;
	unsigned int seq;
} win;

/*
 * One line on QEMU's stderr, "insn-profile: ...": qemu_plugin_outs()
 * writes to QEMU's log, which only -d plugin shows, and a plugin that
 * refuses to load must say why where the runner looks (qemu-boot<N>.stderr).
 */
static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	char buf[4608];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "insn-profile: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", buf);
}

static uint64_t blk_hash(uint64_t vaddr, uint32_t ninsns, uint32_t natomic)
{
	uint64_t h = vaddr ^ ((uint64_t)ninsns << 40) ^ ((uint64_t)natomic << 56);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static bool table_grow(void)
{
	size_t i, j, size = table_size ? table_size * 2 : 1 << 16;
	struct blk **t = calloc(size, sizeof(*t));

	if (!t)
		return false;
	for (i = 0; i < table_size; i++) {
		struct blk *b = table[i];

		if (!b)
			continue;
		j = blk_hash(b->vaddr, b->ninsns, b->natomic) & (size - 1);
		while (t[j])
			j = (j + 1) & (size - 1);
		t[j] = b;
	}
	free(table);
	table = t;
	table_size = size;
	return true;
}

/* The counter of a block, made on its first translation; NULL: no memory. */
static struct blk *blk_get(uint64_t vaddr, uint32_t ninsns, uint32_t natomic)
{
	struct blk *b;
	size_t j;

	if ((nblks + 1) * 10 > table_size * 7 && !table_grow())
		return NULL;
	j = blk_hash(vaddr, ninsns, natomic) & (table_size - 1);
	for (; (b = table[j]); j = (j + 1) & (table_size - 1))
		if (b->vaddr == vaddr && b->ninsns == ninsns && b->natomic == natomic)
			return b;
	if (nblks % CHUNK == 0) {
		struct blk **c = realloc(chunks, (nchunks + 1) * sizeof(*c));

		if (!c)
			return NULL;
		chunks = c;
		chunks[nchunks] = calloc(CHUNK, sizeof(struct blk));
		if (!chunks[nchunks])
			return NULL;
		nchunks++;
	}
	b = &chunks[nblks / CHUNK][nblks % CHUNK];
	nblks++;
	b->vaddr = vaddr;
	b->ninsns = ninsns;
	b->natomic = natomic;
	table[j] = b;
	return b;
}

#define BLK(i)	(&chunks[(i) / CHUNK][(i) % CHUNK])

/*
 * Whether an x86-64 instruction is atomic: a read-modify-write of memory
 * with a lock prefix, or xchg with memory (locked without one). A kernel
 * that finds one CPU at boot (cost mode's default) rewrites the lock
 * prefixes of its LOCK_PREFIX sites to ds (0x3e), and runs them
 * unlocked: a ds prefix on a lockable instruction counts too, so that
 * one vCPU shows the atomics a multi-processor would execute.
 */
static bool insn_atomic(const uint8_t *b, size_t n)
{
	bool lock = false, xchg = false, rmw;
	uint8_t op, modrm, reg;
	size_t i;

	for (i = 0; i < n; i++) {
		switch (b[i]) {
		case 0xf0: case 0x3e:
			lock = true;
			continue;
		case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x26:
		case 0x64: case 0x65: case 0x66: case 0x67:
			continue;
		}
		break;
	}
	if (i < n && (b[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i + 1 >= n)
		return false;
	op = b[i];
	if (op == 0x0f) {
		if (i + 2 >= n)
			return false;
		op = b[i + 1];
		modrm = b[i + 2];
		reg = (modrm >> 3) & 7;
		/* cmpxchg, xadd, bts, btr, btc, bt?/5-7, cmpxchg8b/16b */
		rmw = op == 0xb0 || op == 0xb1 || op == 0xc0 || op == 0xc1 ||
		      op == 0xab || op == 0xb3 || op == 0xbb ||
		      (op == 0xba && reg >= 5) || (op == 0xc7 && reg == 1);
	} else {
		modrm = b[i + 1];
		reg = (modrm >> 3) & 7;
		xchg = op == 0x86 || op == 0x87;
		/* add or adc sbb and sub xor (not cmp); group 1; not, neg; inc, dec */
		rmw = xchg || (op < 0x40 && (op & 7) <= 1 && op >> 3 != 7) ||
		      ((op == 0x80 || op == 0x81 || op == 0x83) && reg != 7) ||
		      ((op == 0xf6 || op == 0xf7) && (reg == 2 || reg == 3)) ||
		      ((op == 0xfe || op == 0xff) && reg <= 1);
	}
	if (!rmw || modrm >> 6 == 3)	/* a register operand: no memory */
		return false;
	return lock || xchg;
}

struct row {
	uint64_t vaddr, insns, atomics;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/*
 * Write the open window: every block executed in it, one row per start
 * address, sorted; ENDED: at its end marker (a .profile
 * file), else cut short by QEMU's exit (a .partial file).
 */
static void window_write(bool ended)
{
	uint64_t insns = 0, atomics = 0;
	char path[4096], tmp[4200];
	struct row *rows;
	size_t i, n = 0, m;
	FILE *f;

	rows = malloc((nblks ? nblks : 1) * sizeof(*rows));
	if (!rows) {
		say("no memory for a window's rows; window lost");
		return;
	}
	for (i = 0; i < nblks; i++) {
		struct blk *b = BLK(i);
		uint64_t d = b->count - b->base;

		rows[n].vaddr = b->vaddr;
		rows[n].insns = per_insn ? b->icount - b->ibase : d * b->ninsns;
		rows[n].atomics = per_insn ? b->acount - b->abase : d * b->natomic;
		if (rows[n].insns || rows[n].atomics)
			n++;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	for (i = m = 0; i < n; i++) {	/* one row per address */
		if (m && rows[m - 1].vaddr == rows[i].vaddr) {
			rows[m - 1].insns += rows[i].insns;
			rows[m - 1].atomics += rows[i].atomics;
		} else {
			rows[m++] = rows[i];
		}
		insns += rows[i].insns;
		atomics += rows[i].atomics;
	}
	snprintf(path, sizeof(path), "%s/w%04u-%08x.%s", outdir, win.seq, win.tag,
		 ended ? "profile" : "partial");
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		say("cannot write %s: %s", tmp, strerror(errno));
		free(rows);
		return;
	}
	fprintf(f, "# rlbench insn-profile 1\ntag\t%08x\nwindow\t%u\nend\t%s\n"
		"insns\t%llu\natomics\t%llu\nblocks\t%zu\nvaddr\tinsns\tatomics\n",
		win.tag, win.seq, ended ? "marker" : "exit",
		(unsigned long long)insns, (unsigned long long)atomics, m);
	for (i = 0; i < m; i++)
		fprintf(f, "%016llx\t%llu\t%llu\n", (unsigned long long)rows[i].vaddr,
			(unsigned long long)rows[i].insns,
			(unsigned long long)rows[i].atomics);
	free(rows);
	if (fclose(f) || rename(tmp, path)) {
		say("cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
	}
}

static void window_start(void)
{
	size_t i;

	if (win.open)
		say("a start marker inside an open window: the open one is dropped");
	win.tag = win.nbits == 32 ? win.bits : 0xffffffffu;
	win.bits = win.nbits = 0;
	win.seq++;
	for (i = 0; i < nblks; i++) {
		struct blk *b = BLK(i);

		b->base = b->count;
		b->ibase = b->icount;
		b->abase = b->acount;
	}
	win.open = true;
}

/* A marker executed: USERDATA is its displacement. */
static void on_marker(unsigned int vcpu, void *userdata)
{
	uint32_t disp = (uint32_t)(uintptr_t)userdata;

	(void)vcpu;
	pthread_mutex_lock(&lock);
	switch (disp) {
	case INSN_MARK_BIT0:
	case INSN_MARK_BIT1:
		win.bits = win.bits << 1 | (disp == INSN_MARK_BIT1);
		if (win.nbits < 32)
			win.nbits++;
		break;
	case INSN_MARK_START:
		window_start();
		break;
	case INSN_MARK_END:
		if (win.open)
			window_write(true);
		win.open = false;
		break;
	}
	pthread_mutex_unlock(&lock);
}

/* The marker an instruction is, or 0. */
static uint32_t insn_marker(const uint8_t *b, size_t n)
{
	uint32_t disp;

	if (n != INSN_MARK_LEN || memcmp(b, INSN_MARK_PREFIX, INSN_MARK_PREFIX_LEN))
		return 0;
	disp = b[5] | b[6] << 8 | b[7] << 16 | (uint32_t)b[8] << 24;
	switch (disp) {
	case INSN_MARK_START: case INSN_MARK_END:
	case INSN_MARK_BIT0: case INSN_MARK_BIT1:
		return disp;
	}
	return 0;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	uint32_t natomic = 0, mark;
	struct blk *b;

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *data = qemu_plugin_insn_data(insn);
		size_t size = qemu_plugin_insn_size(insn);

		natomic += insn_atomic(data, size);
		mark = insn_marker(data, size);
		if (mark)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)mark);
	}
	pthread_mutex_lock(&lock);
	b = blk_get(qemu_plugin_tb_vaddr(tb), n, natomic);
	pthread_mutex_unlock(&lock);
	if (!b) {
		say("no memory for a block's counter; its executions are not counted");
		return;
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
	for (i = 0; per_insn && i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_insn_exec_inline(insn,
			QEMU_PLUGIN_INLINE_ADD_U64, &b->icount, 1);
		if (insn_atomic(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn)))
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &b->acount, 1);
	}
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
	(void)id;
	(void)userdata;
	pthread_mutex_lock(&lock);
	if (win.open)
		window_write(false);
	win.open = false;
	pthread_mutex_unlock(&lock);
}

/**
 * qemu_plugin_install() - load the profiler
 * @id: the plugin's id
 * @info: what QEMU runs: a 64-bit x86 system emulator is required
 * @argc: number of arguments
 * @argv: the arguments: dir=DIR, an existing directory for the windows
 *
 * Return: 0 when loaded; -1 (QEMU refuses to start) on bad arguments.
 */
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	struct stat st;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "dir=", 4) && argv[i][4]) {
			outdir = argv[i] + 4;
		} else if (!strcmp(argv[i], "count=insn") || !strcmp(argv[i], "count=block")) {
			per_insn = argv[i][6] == 'i';
		} else {
			say("unknown argument '%s' (accepted: dir=DIR, count=block|insn)", argv[i]);
			return -1;
		}
	}
	if (!outdir || stat(outdir, &st) || !S_ISDIR(st.st_mode)) {
		say("dir='%s' is not a directory (accepted: dir=<an existing directory>)",
			 outdir ? outdir : "");
		return -1;
	}
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		say("target %s%s is not supported (accepted: qemu-system-x86_64)",
			 info->target_name, info->system_emulation ? "" : " (user mode)");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
