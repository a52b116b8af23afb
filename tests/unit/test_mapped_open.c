/* SPDX-License-Identifier: MIT */
/*
 * record/mapped_open.c: a mapped file is opened only as the file mapped. This process maps a
 * file, deletes it and puts at the path the kernel shows for it ("PATH (deleted)") a FIFO, a
 * symbolic link to a file only root may read, or another file: the opener returns the mapped
 * file through map_files, refuses each of those by path without waiting, and opens the path
 * when it still names the mapped file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record/mapped_open.h"
#include "test.h"

#define CONTENT "the mapped file's own bytes"
#define MARKER	"GPUREC-UNIT-SECRET-MARKER"

static char dir[] = "/tmp/gpurec-mapped-open.XXXXXX";

struct mapped {
	char path[PATH_MAX], shown[PATH_MAX + 16];
	uint64_t start, end, dev, ino;
	void *p;
};

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

/* Map a new file @name of @dir, as a traced program maps a library; 0 or -1. */
static int map_file(struct mapped *m, const char *name)
{
	struct stat st;
	int fd;

	snprintf(m->path, sizeof(m->path), "%s/%s", dir, name);
	snprintf(m->shown, sizeof(m->shown), "%s (deleted)", m->path);
	write_file(m->path, CONTENT, 0644);
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return -1;
	m->p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m->p == MAP_FAILED)
		return -1;
	m->start = (uintptr_t)m->p;
	m->end = m->start + 4096;
	/* the kernel's encoding, as /proc/PID/maps gives it */
	m->dev = ((uint64_t)major(st.st_dev) << 20) | minor(st.st_dev);
	m->ino = st.st_ino;
	return 0;
}

/* Whether @fd reads the mapped file's content (and closes it). */
static int reads_content(int fd)
{
	char buf[64] = "";
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(CONTENT) && !memcmp(buf, CONTENT, n);
}

static void test_path_still_there(void)
{
	struct mapped m;

	CHECK(!map_file(&m, "kept.so"));
	/* by map_files, and by the path alone (as without CAP_SYS_ADMIN) */
	CHECK(reads_content(gr_mapped_open(getpid(), m.start, m.end, m.dev, m.ino, m.path)));
	CHECK(reads_content(gr_mapped_open_path(getpid(), m.path, m.dev, m.ino)));
	/* a relative path is no path in the process's root */
	CHECK_EQ_U64(gr_mapped_open_path(getpid(), "kept.so", m.dev, m.ino), -EINVAL);
	munmap(m.p, 4096);
}

static void test_fifo(void)
{
	struct mapped m;

	CHECK(!map_file(&m, "fifo.so"));
	CHECK(!unlink(m.path));
	CHECK(!mkfifo(m.shown, 0666));
	/* a blocking open of the FIFO would wait for a writer forever: the alarm ends the test */
	alarm(10);
	CHECK_EQ_U64(gr_mapped_open_path(getpid(), m.shown, m.dev, m.ino), -EINVAL);
	/* map_files (root's: it needs CAP_SYS_ADMIN) still reaches the deleted file itself */
	if (geteuid() == 0)
		CHECK(
		    reads_content(gr_mapped_open(getpid(), m.start, m.end, m.dev, m.ino, m.shown)));
	/* the mapping gone from that range: the path is tried, and refused */
	munmap(m.p, 4096);
	CHECK_EQ_U64(gr_mapped_open(getpid(), m.start, m.end, m.dev, m.ino, m.shown), -EINVAL);
	alarm(0);
}

static void test_link_to_secret(void)
{
	char secret[PATH_MAX];
	struct mapped m;

	CHECK(!map_file(&m, "link.so"));
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	write_file(secret, MARKER, 0600);
	CHECK(!unlink(m.path));
	CHECK(!symlink(secret, m.shown));
	CHECK_EQ_U64(gr_mapped_open_path(getpid(), m.shown, m.dev, m.ino), -EINVAL);
	/* a hard link is no link to refuse, but another inode: still not the mapped file */
	CHECK(!unlink(m.shown));
	CHECK(!link(secret, m.shown));
	CHECK_EQ_U64(gr_mapped_open_path(getpid(), m.shown, m.dev, m.ino), -ESTALE);
	/* the mapping gone from that range: the path is tried, and refused */
	munmap(m.p, 4096);
	CHECK_EQ_U64(gr_mapped_open(getpid(), m.start, m.end, m.dev, m.ino, m.shown), -ESTALE);
}

static void test_device(void)
{
	struct stat st;

	/* a device with its own device and inode: found, and still refused (no driver's open) */
	CHECK(!stat("/dev/null", &st));
	CHECK_EQ_U64(gr_mapped_open_path(getpid(), "/dev/null",
					 ((uint64_t)major(st.st_dev) << 20) | minor(st.st_dev),
					 st.st_ino),
		     -EINVAL);
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	RUN_TEST(test_path_still_there);
	RUN_TEST(test_fifo);
	RUN_TEST(test_link_to_secret);
	RUN_TEST(test_device);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	TEST_EXIT();
}
