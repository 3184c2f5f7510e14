// SPDX-License-Identifier: GPL-2.0
/*
 * Whose a file is: the user.rlwork ownership mark that the target file
 * (target.c) and the result document (report.c) share, and what --json
 * may replace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "rlwork.h"

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
 * above; --force: any regular file), never the target file, in a
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
