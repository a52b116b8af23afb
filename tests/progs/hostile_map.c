/*
 * A traced program that points the recorder at what it did not map (tests/e2e/
 * record_hostile_paths.sh). It maps DIR/victim.so readable only, deletes it and puts MODE at
 * the path /proc/PID/maps now shows for the mapping, "DIR/victim.so (deleted)": "fifo" a FIFO
 * nobody writes, "link" a symbolic link to TARGET. Only then does it make the mapping
 * executable (mprotect: no mmap, so the recorder has not examined the file yet) and dlopen
 * CUDART, whose mapping makes the recorder scan the maps and meet the mapping for the first
 * time. Then N calls of cudaDeviceSynchronize (they fail without a GPU: still recorded).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char victim[PATH_MAX], shown[PATH_MAX + 16];
	int (*sync)(void);
	struct stat st;
	void *p, *rt;
	int fd, n;

	if (argc < 6) {
		fprintf(stderr, "usage: hostile_map DIR fifo|link TARGET CUDART N\n");
		return 2;
	}
	snprintf(victim, sizeof(victim), "%s/victim.so", argv[1]);
	snprintf(shown, sizeof(shown), "%s (deleted)", victim);
	fd = open(victim, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		perror(victim);
		return 1;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	close(fd);
	if (unlink(victim) ||
	    (!strcmp(argv[2], "fifo") ? mkfifo(shown, 0666) : symlink(argv[3], shown))) {
		perror(shown);
		return 1;
	}
	if (mprotect(p, st.st_size, PROT_READ | PROT_EXEC)) {
		perror("mprotect");
		return 1;
	}
	rt = dlopen(argv[4], RTLD_NOW);
	sync = rt ? (int (*)(void))dlsym(rt, "cudaDeviceSynchronize") : NULL;
	if (!sync) {
		fprintf(stderr, "hostile_map: %s\n", dlerror());
		return 1;
	}
	n = atoi(argv[5]);
	for (int i = 0; i < n; i++)
		sync();
	printf("hostile_map: syncs=%d\n", n);
	return 0;
}
