// SPDX-License-Identifier: GPL-2.0
/*
 * The target file: refuse what would destroy data rlwork does not own,
 * check the filesystem can do what the workload needs (O_DIRECT, punch,
 * room for the fill), and lay out tagged contents so every later read is
 * checkable. Also what the result document (--json) may replace, and the
 * ownership mark both share.
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
#include <sys/ioctl.h>
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
#define OWNER_XATTR	"user.rlwork"

/*
 * Ownership. A file is rlwork's when its user.rlwork xattr holds the kind
 * of file, the identity of the inode it sits on (inode number, birth time
 * and inode generation, as far as the filesystem reports them) and what
 * rlwork left in it (size and modification time). rlwork writes the mark
 * when it creates the file, and again when it is done writing it (a kept
 * data file at the end of the run, a result once it is on the disk). A
 * copy does not pass: cp without --preserve=xattr (or a first block copied
 * with dd) has no mark, and a copy that keeps xattrs (cp -a, rsync -X, tar
 * --xattrs) is another inode, with another number and birth time. Nor
 * does the file once someone else wrote it in place: the mark alone would
 * have outlived the contents it vouched for, and a later run replaced a
 * user's rewrite without --force. Setting the xattr moves the ctime, not
 * the mtime, so the mark can record the mtime it leaves. Contents prove
 * nothing (a copy has the same), so they are not looked at. Where the
 * mark cannot be read or the inode reports neither a birth time nor a
 * generation, ownership cannot be proven and the file counts as not
 * rlwork's.
 */
#define OWNER_VERSION	"rlwork/2 "

/* the mark FD's file gets now; *idlen: the part naming the inode */
static int owner_id(int fd, const char *kind, char *buf, size_t len,
		    size_t *idlen)
{
	struct statx sx;
	unsigned int gen;
	bool have_gen;
	size_t n;

	if (statx(fd, "", AT_EMPTY_PATH,
		  STATX_INO | STATX_BTIME | STATX_SIZE | STATX_MTIME, &sx))
		return -1;
	/* ext4, xfs, btrfs; tmpfs has a birth time but no such ioctl */
	have_gen = !ioctl(fd, FS_IOC_GETVERSION, &gen);
	if (!(sx.stx_mask & STATX_BTIME) && !have_gen) {
		errno = ENOTSUP;
		return -1;
	}
	n = snprintf(buf, len, OWNER_VERSION "%s ino=%llu", kind,
		     (unsigned long long)sx.stx_ino);
	if ((sx.stx_mask & STATX_BTIME) && n < len)
		n += snprintf(buf + n, len - n, " btime=%lld.%09u",
			      (long long)sx.stx_btime.tv_sec,
			      sx.stx_btime.tv_nsec);
	if (have_gen && n < len)
		n += snprintf(buf + n, len - n, " gen=%u", gen);
	*idlen = n;
	if (n < len)
		n += snprintf(buf + n, len - n, " size=%llu mtime=%lld.%09u",
			      (unsigned long long)sx.stx_size,
			      (long long)sx.stx_mtime.tv_sec,
			      sx.stx_mtime.tv_nsec);
	return n < len ? 0 : -1;
}

int owner_mark(int fd, const char *kind)
{
	char id[200];
	size_t idlen;

	if (owner_id(fd, kind, id, sizeof(id), &idlen))
		return -1;
	return fsetxattr(fd, OWNER_XATTR, id, strlen(id), 0);
}

enum owner owner_check(int fd, const char *kind)
{
	char want[200], got[200];
	size_t idlen;
	ssize_t n;

	n = fgetxattr(fd, OWNER_XATTR, got, sizeof(got) - 1);
	if (n < 0)
		return errno == ENODATA ? OWNER_NONE :
		       errno == ERANGE ? OWNER_OTHER : OWNER_UNKNOWN;
	got[n] = 0;
	if (owner_id(fd, kind, want, sizeof(want), &idlen))
		return OWNER_UNKNOWN;
	if (!strcmp(got, want))
		return OWNER_YES;
	/* this inode's mark, and this kind's: the contents moved on */
	return !strncmp(got, want, idlen) && got[idlen] == ' ' ?
	       OWNER_CHANGED : OWNER_OTHER;
}

const char *owner_why(enum owner o)
{
	switch (o) {
	case OWNER_YES:
		return "";
	case OWNER_OTHER:
		return " (its " OWNER_XATTR " mark was made for another file: a copy, or another kind of rlwork file)";
	case OWNER_CHANGED:
		return " (written since rlwork did: its size or modification time is not what its " OWNER_XATTR " mark recorded)";
	case OWNER_UNKNOWN:
		return " (no usable " OWNER_XATTR " xattr here: rlwork cannot prove it created it)";
	default:
		return "";
	}
}

/* PATH with its directory resolved: the name the file has or would have */
static char *resolved(const char *path)
{
	char *a = strdup(path), *b = strdup(path), *dir, *out = NULL;

	dir = realpath(dirname(a), NULL);
	if (dir && asprintf(&out, "%s/%s", dir, basename(b)) < 0)
		out = NULL;
	free(dir);
	free(a);
	free(b);
	return out;
}

static const char *file_kind(mode_t m)
{
	return S_ISLNK(m) ? "a symbolic link" : S_ISDIR(m) ? "a directory" :
	       S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* create and remove a file in dir: the temp file will be possible */
static int probe_dir(const char *dir)
{
	char tmp[PATH_MAX];
	int fd;

	sigset_t old;
	int e;

	/* a signal in between would leave the probe behind */
	rl_signals_block(&old);
	snprintf(tmp, sizeof(tmp), "%s/.rlwork-XXXXXX", dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	e = errno;
	rl_signals_restore(&old);
	errno = e;
	return fd < 0 ? -1 : 0;
}

#define ACCEPTED "a new file in a writable directory, a result rlwork wrote, or - for stdout"

/*
 * --json PATH names a new file or one rlwork wrote (its user.rlwork mark,
 * see target.c; --force: any regular file), never the target file, in a
 * directory we can write: checked before the run, so a bad PATH never
 * costs one, and again just before the rename, since a run takes long.
 * The rename replaces PATH itself, so symbolic links and everything but a
 * regular file are refused even with --force. probe: also create and
 * remove a file in the directory.
 */
int result_path_check(const struct rl_run *r, bool probe, char *err,
		      size_t len)
{
	const char *p = r->o.json;
	const char *base;
	char *copy, *dir, *rp = NULL, *rf = NULL;
	struct stat st, fst;
	enum owner own;
	long name_max;
	int fd, ret = -1;

	if (!p || !strcmp(p, "-"))
		return 0;
	if (strlen(p) + sizeof("/.rlwork-XXXXXX") > PATH_MAX)
		return snprintf(err, len, "--json: '%.40s...' is %zu bytes long; accepted: paths up to %zu bytes",
				p, strlen(p),
				(size_t)PATH_MAX - sizeof("/.rlwork-XXXXXX")), -1;
	if (p[strlen(p) - 1] == '/')
		return snprintf(err, len, "--json: '%s' names a directory; accepted: %s",
				p, ACCEPTED), -1;
	copy = strdup(p);
	dir = dirname(copy);
	base = p + strlen(p);
	while (base > p && base[-1] != '/')
		base--;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, len, "--json: directory of '%s' does not exist", p);
		goto out;
	}
	name_max = pathconf(dir, _PC_NAME_MAX);
	if (name_max <= 0)
		name_max = NAME_MAX;
	if ((long)strlen(base) > name_max) {
		snprintf(err, len, "--json: the file name of '%.40s...' is %zu bytes long; accepted: names up to %ld bytes",
			 p, strlen(base), name_max);
		goto out;
	}
	/*
	 * access() knows EROFS and chattr +i, also for root; the probe knows
	 * the rest (a pseudo filesystem, a server that says no, quotas).
	 */
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) ||
	    (probe && probe_dir(dir))) {
		snprintf(err, len, "--json: directory of '%s' is not writable (%s); accepted: %s",
			 p, strerror(errno), ACCEPTED);
		goto out;
	}
	rp = resolved(p);
	rf = resolved(r->o.file);
	if (lstat(p, &st)) {
		if (errno != ENOENT) {
			snprintf(err, len, "--json: '%s': %s", p, strerror(errno));
			goto out;
		}
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, len, "--json: '%s' is %s, which rlwork never replaces; accepted: %s",
			 p, file_kind(st.st_mode), ACCEPTED);
		goto out;
	}
	if ((rp && rf && !strcmp(rp, rf)) ||
	    (!lstat(p, &st) && !stat(r->o.file, &fst) &&
	     st.st_dev == fst.st_dev && st.st_ino == fst.st_ino)) {
		snprintf(err, len, "--json: '%s' is the target file (--file %s); accepted: any other path",
			 p, r->o.file);
		goto out;
	}
	if (!lstat(p, &st)) {
		fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		own = fd < 0 ? OWNER_UNKNOWN : owner_check(fd, "result");
		if (fd >= 0)
			close(fd);
		if (own != OWNER_YES && !r->o.force) {
			snprintf(err, len, "--json: '%s' exists and was not written by rlwork%s: refusing to replace it; accepted: %s (or --force)",
				 p, owner_why(own), ACCEPTED);
			goto out;
		}
	}
	ret = 0;
out:
	free(rp);
	free(rf);
	free(copy);
	return ret;
}

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

static int check_direct_fs(struct rl_run *r)
{
	char *copy = strdup(r->o.file);
	struct statfs sfs;
	int ret;

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
		return bad(r, "%s", "not a regular file (rlwork needs a file it can truncate and punch)");
	/* O_NONBLOCK: a FIFO swapped in since the stat must not hang us */
	t->fd = open(t->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0)
		return bad(r, "cannot open: %s", strerror(errno));
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
		return bad(r, "cannot create: %s", strerror(errno));
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

int target_open(struct rl_run *r)
{
	struct target *t = &r->t;
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
	if (r->wl->flags & WL_DIRECT) {
		t->dfd = open(t->path, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (t->dfd < 0) {
			ret = bad(r, "O_DIRECT is not supported here: %s",
				  strerror(errno));
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
