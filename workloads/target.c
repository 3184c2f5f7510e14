// SPDX-License-Identifier: GPL-2.0
/*
 * The target file: refuse what would destroy data rlwork does not own,
 * check the filesystem can do what the workload needs (O_DIRECT, punch),
 * and lay out tagged contents so every later read is checkable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "oracle.h"
#include "rlwork.h"

#define TMPFS_MAGIC	0x01021994
#define RAMFS_MAGIC	0x858458f6
#define FILL_CHUNK	(1u << 20)
#define OWNER_XATTR	"user.rlwork"

static int bad(const struct run *r, const char *fmt, const char *detail)
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

static int check_direct_fs(struct run *r)
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

static int open_existing(struct run *r, struct target *t)
{
	char page[RL_PAGE] __attribute__((aligned(64)));
	struct stat st;

	if (stat(t->path, &st))
		return -1;
	if (!S_ISREG(st.st_mode))
		return bad(r, "%s", "not a regular file (rlwork needs a file it can truncate and punch)");
	t->fd = open(t->path, O_RDWR);
	if (t->fd < 0)
		return bad(r, "cannot open: %s", strerror(errno));
	/*
	 * rlwork marks the files it creates with an xattr; where xattrs do not
	 * work, a first page carrying an rlwork tag says the same.
	 */
	if (!r->o.force && fgetxattr(t->fd, OWNER_XATTR, NULL, 0) < 0 &&
	    (pread(t->fd, page, RL_PAGE, 0) != RL_PAGE ||
	     !tag_is_rlwork(page))) {
		close(t->fd);
		return bad(r, "%s", "exists and was not created by rlwork: refusing to overwrite it (use --force)");
	}
	return 0;
}

static int open_or_create(struct run *r, struct target *t)
{
	int ret = open_existing(r, t);

	if (ret >= 0)
		return ret;
	if (errno != ENOENT)
		return bad(r, "%s", strerror(errno));
	t->fd = open(t->path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (t->fd < 0)
		return bad(r, "cannot create: %s", strerror(errno));
	t->created = true;
	fsetxattr(t->fd, OWNER_XATTR, "1", 1, 0);
	return 0;
}

static int check_punch(struct run *r, struct target *t)
{
	if (!fallocate(t->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
		       RL_PAGE))
		return 0;
	if (errno == EOPNOTSUPP || errno == ENOSYS)
		return bad(r, "hole punching (fallocate PUNCH_HOLE) is not supported on %s; use ext4, xfs or btrfs",
			   t->fstype);
	return bad(r, "fallocate(PUNCH_HOLE): %s", strerror(errno));
}

int target_fill(struct run *r, uint64_t from, uint64_t to)
{
	struct target *t = &r->t;
	uint64_t off, n, i;
	char *buf;

	if (posix_memalign((void **)&buf, RL_PAGE, FILL_CHUNK))
		return -1;
	for (off = from; off < to; off += n) {
		n = to - off < FILL_CHUNK ? to - off : FILL_CHUNK;
		for (i = 0; i < n; i += RL_PAGE)
			tag_fill_page(buf + i, t->file_id, (off + i) / RL_PAGE,
				      1);
		if (pwrite(t->fd, buf, n, off) != (ssize_t)n) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}

int target_open(struct run *r)
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
		t->dfd = open(t->path, O_RDWR | O_DIRECT);
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
	if ((!t->sparse && target_fill(r, 0, t->size)) || fsync(t->fd)) {
		fprintf(stderr, "rlwork %s: %s: writing the initial data: %s\n",
			r->wl->name, t->path, strerror(errno));
		ret = EXIT_MEASURED;
		goto fail;
	}
	posix_fadvise(t->fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
fail:
	target_close(r);
	return ret;
}

void target_close(struct run *r)
{
	struct target *t = &r->t;

	if (t->dfd >= 0)
		close(t->dfd);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = t->dfd = -1;
	if (t->created && !r->o.keep)
		unlink(t->path);
}
