/* SPDX-License-Identifier: MIT */
/*
 * record/discover.c reads /proc/PID/maps line by line, whatever a line's length. A path has no
 * length limit there: this process maps a file so deep that its maps line passes 4 KiB, with a
 * directory named like the rest of a maps line (mapping, r-xp, the device and inode of a
 * root-only file, that file's path). Cut at a fixed buffer's end, the rest reads as a mapping of
 * its own and the recorder opens the root-only file as a mapped one; read whole, it is the path
 * of the mapping it belongs to.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record/discover.h"
#include "test.h"

static char dir[] = "/tmp/gpurec-discover.XXXXXX";

/* mkdir @name in the current directory and enter it: 0 or -1 */
static int enter(const char *name)
{
	return (mkdir(name, 0755) && errno != EEXIST) || chdir(name) ? -1 : 0;
}

static void test_long_line_is_one_mapping(void)
{
	char secret[PATH_MAX], name[256], sub[PATH_MAX], *tok;
	struct gr_procs procs = {0};
	struct stat st;
	size_t depth = strlen(dir);
	int here = open(".", O_PATH | O_CLOEXEC), fd;
	void *p = MAP_FAILED;

	snprintf(secret, sizeof(secret), "%s/secret", dir);
	fd = open(secret, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && !fstat(fd, &st));
	if (fd >= 0)
		close(fd);
	CHECK(!chdir(dir));
	/*
	 * 4202 bytes of path, then 150 spaces: the path begins at column 73 of its line (later when
	 * the numbers before it are longer), so the old 4352-byte buffer ended in the spaces
	 */
	memset(name, 'd', 200);
	name[200] = 0;
	while (depth + 201 < 4202 - 2 && !enter(name))
		depth += 201;
	name[4202 - depth - 1] = 0;
	CHECK(!enter(name));
	snprintf(name, sizeof(name), "%*s1000-2000 r-xp 00000000 %x:%x %lu ", 150, "",
		 major(st.st_dev), minor(st.st_dev), (unsigned long)st.st_ino);
	CHECK(!enter(name));
	/* then the secret's own path, as directories, and a file of ours at its end */
	snprintf(sub, sizeof(sub), "%s", dir + 1);
	for (tok = strtok(sub, "/"); tok; tok = strtok(NULL, "/"))
		CHECK(!enter(tok));
	fd = open("secret", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1);
	if (fd >= 0) {
		p = mmap(NULL, 1, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		close(fd);
	}
	CHECK(p != MAP_FAILED);
	CHECK(!fchdir(here));
	close(here);

	CHECK(!gr_discover_scan(&procs, getpid()));
	for (size_t i = 0; i < procs.nfiles; i++) {
		const struct gr_file *f = procs.files[i];

		if (f->ino == st.st_ino) {
			printf("#   the root-only file was taken for a mapping: %s (fd %d)\n",
			       f->path, f->fd);
			CHECK(0);
		}
	}
	gr_discover_free(&procs);
	if (p != MAP_FAILED)
		munmap(p, 1);
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	RUN_TEST(test_long_line_is_one_mapping);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	TEST_EXIT();
}
