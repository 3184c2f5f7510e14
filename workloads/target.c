// SPDX-License-Identifier: GPL-2.0
/*
 * The target file: refuse what would destroy data rlwork does not own
 * (the ownership mark: owner.c), check the filesystem can do what the
 * workload needs (O_DIRECT, punch, room for the fill), and lay out tagged
 * contents so every later read is checkable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "oracle.h"
#include "rlwork.h"

#define TMPFS_MAGIC	0x01021994
#define RAMFS_MAGIC	0x858458f6
#define FILL_CHUNK	(1u << 20)
#ifndef CONFIGFS_MAGIC		/* not in every linux/magic.h */
#define CONFIGFS_MAGIC	0x62656570
#endif

static int bad(const struct rl_run *r, const char *fmt, const char *detail)
{
	fprintf(stderr, "rlwork %s: %s: ", r->wl->name, r->o.file);
	fprintf(stderr, fmt, detail);
	fputc('\n', stderr);
	return EXIT_BADINPUT;
}

/* the filesystem type as mount(8) names it, from /proc/self/mountinfo */
static void fs_name(dev_t dev, char *out, size_t len)
{
	unsigned int maj, min;
	char line[4096], *sep, type[32];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	snprintf(out, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 ||
		    maj != major(dev) || min != minor(dev))
			continue;
		/* the last of stacked mounts is the one in use: no break */
		sep = strstr(line, " - ");
		if (sep && sscanf(sep + 3, "%31s", type) == 1)
			snprintf(out, len, "%s", type);
	}
	fclose(f);
}

#define NOT_REGULAR "not a regular file (rlwork needs a file it can truncate and punch)"

static int check_direct_fs(struct rl_run *r)
{
	char *copy = strdup(r->o.file);
	struct statfs sfs;
	struct stat st;
	int ret;

	/* what the path is comes first: /dev/null is not tmpfs' fault */
	if (!stat(r->o.file, &st) && !S_ISREG(st.st_mode)) {
		free(copy);
		return bad(r, "%s", NOT_REGULAR);
	}
	ret = statfs(dirname(copy), &sfs);
	free(copy);
	if (ret)
		return bad(r, "directory not usable: %s", strerror(errno));
	/* tmpfs accepts O_DIRECT since 6.6 but has no device to bypass to */
	if (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC)
		return bad(r, "O_DIRECT is not supported on %s (no backing device); use a file on a disk filesystem such as ext4",
			   sfs.f_type == TMPFS_MAGIC ? "tmpfs" : "ramfs");
	return 0;
}

/*
 * The fill writes --size bytes; refuse up front what cannot fit rather
 * than fail half way. reclaim: the blocks of the file the fill replaces.
 */
static int check_space(struct rl_run *r, const struct statvfs *vfs,
		       uint64_t reclaim)
{
	uint64_t bsize = vfs->f_frsize ? vfs->f_frsize : vfs->f_bsize;
	/* root may use the blocks ext4 reserves */
	uint64_t free = (geteuid() ? vfs->f_bavail : vfs->f_bfree) * bsize;
	struct rlimit fsize;

	/* `ulimit -f` would kill the fill with SIGXFSZ half way */
	if (!getrlimit(RLIMIT_FSIZE, &fsize) && fsize.rlim_cur != RLIM_INFINITY &&
	    r->t.size > fsize.rlim_cur) {
		fprintf(stderr, "rlwork %s: %s: --size %llu: %s; accepted: a --size up to the limit, or a higher limit\n",
			r->wl->name, r->o.file, (unsigned long long)r->t.size,
			rl_strerror(EFBIG, -1, NULL));
		return EXIT_BADINPUT;
	}
	/* f_blocks 0: no size to run out of (ramfs) */
	if (r->t.sparse || !vfs->f_blocks || r->t.size <= free + reclaim)
		return 0;
	fprintf(stderr, "rlwork %s: %s: --size %llu (%.1f MiB) does not fit: %llu bytes (%.1f MiB) free on its filesystem; accepted: a --size up to the free space\n",
		r->wl->name, r->o.file, (unsigned long long)r->t.size,
		r->t.size / 1048576.0, (unsigned long long)(free + reclaim),
		(free + reclaim) / 1048576.0);
	return EXIT_BADINPUT;
}

/* ret < 0: no such file (errno), else an exit code (0: t->fd is open) */
static int open_existing(struct rl_run *r, struct target *t)
{
	struct stat st, fst;
	struct statvfs vfs;
	enum owner own;

	if (stat(t->path, &st))
		return -1;
	if (!S_ISREG(st.st_mode))
		return bad(r, "%s", NOT_REGULAR);
	/* O_NONBLOCK: a FIFO swapped in since the stat must not hang us */
	t->fd = open(t->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0)
		return bad(r, "cannot open: %s", rl_strerror(errno, -1, NULL));
	if (fstat(t->fd, &fst) || fst.st_dev != st.st_dev ||
	    fst.st_ino != st.st_ino ||
	    fcntl(t->fd, F_SETFL, 0)) {
		close(t->fd);
		t->fd = -1;
		return bad(r, "%s", "changed while being opened; refusing to touch it");
	}
	own = owner_check(t->fd, "data");
	t->owned = own == OWNER_YES;
	if (!r->o.force && own != OWNER_YES) {
		fprintf(stderr, "rlwork %s: %s: exists and was not created by rlwork%s: refusing to overwrite it (use --force)\n",
			r->wl->name, r->o.file, owner_why(own));
		close(t->fd);
		t->fd = -1;
		return EXIT_BADINPUT;
	}
	if (!fstatvfs(t->fd, &vfs) &&
	    check_space(r, &vfs, (uint64_t)fst.st_blocks * 512)) {
		close(t->fd);
		t->fd = -1;
		return EXIT_BADINPUT;
	}
	return 0;
}

static int open_or_create(struct rl_run *r, struct target *t)
{
	int ret = open_existing(r, t);
	struct statvfs vfs;
	sigset_t old;
	char *copy;
	int e;

	if (ret >= 0)
		return ret;
	if (errno != ENOENT)
		return bad(r, "%s", strerror(errno));
	copy = strdup(t->path);
	ret = statvfs(dirname(copy), &vfs);
	free(copy);
	if (!ret && (ret = check_space(r, &vfs, 0)))
		return ret;
	/* a fatal signal removes it from its creation on (signals.c) */
	rl_signals_block(&old);
	t->fd = open(t->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (t->fd >= 0)
		rl_doomed_set(RL_DOOMED_TARGET, t->path, t->fd);
	e = errno;
	rl_signals_restore(&old);
	errno = e;
	if (t->fd < 0)
		return bad(r, "cannot create: %s", rl_strerror(errno, -1, NULL));
	t->created = true;
	if (owner_mark(t->fd, "data") && r->o.keep)
		fprintf(stderr, "rlwork %s: %s: cannot mark it as rlwork's (%s): a later run will refuse it without --force\n",
			r->wl->name, t->path, strerror(errno));
	return 0;
}

static int check_punch(struct rl_run *r, struct target *t)
{
	if (!fallocate(t->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
		       RL_PAGE))
		return 0;
	if (errno == EOPNOTSUPP || errno == ENOSYS)
		return bad(r, "hole punching (fallocate PUNCH_HOLE) is not supported on %s; use ext4, xfs or btrfs",
			   t->fstype);
	return bad(r, "fallocate(PUNCH_HOLE): %s", strerror(errno));
}

/*
 * The fill writes around the page cache where the file allows it: the pages
 * would be dropped right after (every point starts cold), and allocating
 * and copying them was most of a point's setup (under TCG 0.5-0.7 s of
 * guest time for 128 MiB, against about 0.15 s written directly).  A file
 * that refuses O_DIRECT, or a chunk the filesystem cannot write directly
 * (EINVAL: an unaligned tail), goes through the cache as before.
 *
 * Stops at SIGINT/SIGTERM with EINTR, so the caller can clean up.
 */
int target_fill(struct rl_run *r, uint64_t from, uint64_t to)
{
	struct target *t = &r->t;
	uint64_t off, n, i;
	int flags, ret = 0;
	ssize_t done;
	bool direct;
	char *buf;

	if (posix_memalign((void **)&buf, RL_PAGE, FILL_CHUNK))
		return -1;
	flags = fcntl(t->fd, F_GETFL);
	direct = flags >= 0 && !(flags & O_DIRECT) &&
		 !fcntl(t->fd, F_SETFL, flags | O_DIRECT);
	for (off = from; off < to && !ret; off += n) {
		if (rl_interrupted) {
			errno = EINTR;
			ret = -1;
			break;
		}
		n = to - off < FILL_CHUNK ? to - off : FILL_CHUNK;
		for (i = 0; i < n; i += RL_PAGE)
			tag_fill_page(buf + i, t->file_id, (off + i) / RL_PAGE,
				      1);
		done = pwrite(t->fd, buf, n, off);
		if (done < 0 && errno == EINVAL && direct) {
			direct = false;
			fcntl(t->fd, F_SETFL, flags);
			done = pwrite(t->fd, buf, n, off);
		}
		if (done != (ssize_t)n)
			ret = -1;
	}
	if (direct)
		fcntl(t->fd, F_SETFL, flags);
	free(buf);
	return ret;
}

/* how many extents the file has now, or -1 without FIEMAP */
static long file_extents(int fd)
{
	struct fiemap fm = { .fm_length = FIEMAP_MAX_OFFSET,
			     .fm_flags = FIEMAP_FLAG_SYNC };

	if (ioctl(fd, FS_IOC_FIEMAP, &fm))
		return -1;
	return fm.fm_mapped_extents;
}

/*
 * dio --split-pages: move the second filesystem block of every --bs IO's
 * first page elsewhere on the disk.  The extent boundary inside the first page of each IO
 * makes the first mapping of the IO one bio that ends inside a page and
 * the second mapping's bio start in the same page; under IOPOLL the first
 * can be polled (iomap polls an IO's bio only while it is the last one it
 * knows of).  Freed blocks are not reused before the journal commits, so
 * the rewrite lands elsewhere.
 */
int target_split_pages(struct rl_run *r)
{
	struct target *t = &r->t;
	uint64_t off, blk;
	struct stat st;
	long before;
	void *buf;
	int ret = 0;

	if (fstat(t->fd, &st))
		return EXIT_MEASURED;
	blk = st.st_blksize;
	if (blk >= RL_PAGE || RL_PAGE % blk) {
		fprintf(stderr, "rlwork %s: --split-pages needs filesystem blocks smaller than a page; %s has %llu-byte blocks (make it with 1 KiB or 2 KiB blocks)\n",
			r->wl->name, t->path, (unsigned long long)blk);
		return EXIT_BADINPUT;
	}
	if (posix_memalign(&buf, RL_PAGE, blk))
		return EXIT_MEASURED;
	before = file_extents(t->fd);
	for (off = 0; off + r->o.bs <= t->size && !ret; off += r->o.bs) {
		if (pread(t->fd, buf, blk, off + blk) != (ssize_t)blk ||
		    fallocate(t->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      off + blk, blk) ||
		    pwrite(t->dfd, buf, blk, off + blk) != (ssize_t)blk)
			ret = EXIT_MEASURED;
	}
	free(buf);
	if (ret || fsync(t->fd)) {
		fprintf(stderr, "rlwork %s: --split-pages: rewriting block %llu of %s: %s\n",
			r->wl->name, (unsigned long long)((off - r->o.bs + blk) / blk),
			t->path, strerror(errno));
		return EXIT_MEASURED;
	}
	posix_fadvise(t->fd, 0, 0, POSIX_FADV_DONTNEED);
	fprintf(r->info, "rlwork %s: --split-pages: %llu-byte blocks, %ld extents before, %ld after\n",
		r->wl->name, (unsigned long long)blk, before, file_extents(t->fd));
	return 0;
}

/*
 * Files of kernel interfaces: a write there sets a knob or fails half way
 * (/proc/self/status took the open and the truncate, then failed the fill
 * with ESPIPE, a measured failure), so refuse before the first write.
 */
static bool pseudo_fs(long type)
{
	static const long magic[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC,
		SECURITYFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
		BPF_FS_MAGIC, CONFIGFS_MAGIC, EFIVARFS_MAGIC, PSTOREFS_MAGIC,
		SELINUX_MAGIC, SMACK_MAGIC, DEVPTS_SUPER_MAGIC,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(magic); i++)
		if (type == magic[i])
			return true;
	return false;
}

int target_open(struct rl_run *r)
{
	struct target *t = &r->t;
	struct statfs sfs;
	struct stat st;
	int ret;

	t->path = r->o.file;
	t->size = r->o.size;
	t->dfd = -1;
	if ((r->wl->flags & WL_DIRECT) && (ret = check_direct_fs(r)))
		return ret;
	ret = open_or_create(r, t);
	if (ret)
		return ret;
	fstat(t->fd, &st);
	fs_name(st.st_dev, t->fstype, sizeof(t->fstype));
	if (!fstatfs(t->fd, &sfs) && pseudo_fs(sfs.f_type)) {
		ret = bad(r, "is on %s, a kernel interface without storage; accepted: a file on a disk filesystem such as ext4",
			  t->fstype);
		goto fail;
	}
	if (r->wl->flags & WL_DIRECT) {
		t->dfd = open(t->path, O_RDWR | O_DIRECT | O_CLOEXEC);
		/* EINVAL is O_DIRECT's refusal; anything else is not its fault */
		if (t->dfd < 0) {
			bool limit;
			char why[400];

			snprintf(why, sizeof(why), "%s", rl_strerror(errno, -1, &limit));
			ret = bad(r, errno == EINVAL ?
				  "O_DIRECT is not supported here: %s" : limit ?
				  "cannot open it with O_DIRECT: %s; accepted: a higher limit" :
				  "cannot open it with O_DIRECT: %s", why);
			goto fail;
		}
	}
	if (ftruncate(t->fd, 0) || ftruncate(t->fd, t->size)) {
		ret = bad(r, "cannot size the file: %s", strerror(errno));
		goto fail;
	}
	if ((r->wl->flags & WL_PUNCH) && (ret = check_punch(r, t)))
		goto fail;
	if ((!t->sparse && target_fill(r, 0, t->size)) || fsync(t->fd) ||
	    rl_interrupted) {
		fprintf(stderr, "rlwork %s: %s: writing the initial data: %s\n",
			r->wl->name, t->path, rl_interrupted ?
			"interrupted by a signal" : strerror(errno));
		ret = EXIT_MEASURED;
		goto fail;
	}
	posix_fadvise(t->fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
fail:
	target_abort(r);
	return ret;
}

/*
 * Remove the file only while its name still leads to the inode this run
 * created: whatever was put there since is someone else's.
 */
static void target_release(struct rl_run *r, bool remove)
{
	struct target *t = &r->t;
	struct stat a, b;

	if (remove && t->created && t->fd >= 0 && !fstat(t->fd, &a) &&
	    !lstat(t->path, &b) && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		unlink(t->path);
	/* kept: the mark vouches for what this run left in it */
	else if (!remove && (t->created || t->owned) && t->fd >= 0)
		owner_mark(t->fd, "data");
	/* kept, or gone: no signal may remove it from here on */
	rl_doomed_clear(RL_DOOMED_TARGET);
	if (t->dfd >= 0)
		close(t->dfd);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = t->dfd = -1;
	t->created = t->owned = false;
}

/* the end of a run: the file goes unless --keep */
void target_close(struct rl_run *r)
{
	target_release(r, !r->o.keep);
}

/* a run that failed before its threads ran: a file it created goes */
void target_abort(struct rl_run *r)
{
	target_release(r, true);
}
