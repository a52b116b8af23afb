/* SPDX-License-Identifier: MIT */
/* Is there a CUDA driver here? See driver.h. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "identity.h"

/*
 * Load libcuda.so.1 as a program would, in a child. Returns 1 with the loaded file's path in
 * @path, or 0 with the loader's reason there.
 */
static int load_libcuda(const struct gr_identity *id, char *path, size_t size)
{
	char buf[512];
	int fds[2], status = 0;
	ssize_t n = 0, r;
	pid_t pid;

	snprintf(path, size, "cannot check: %s", strerror(errno));
	if (pipe2(fds, O_CLOEXEC))
		return 0;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		struct link_map *lm = NULL;
		char real[PATH_MAX];
		const char *text = "";
		void *h = NULL;

		if (id && gr_identity_drop(id))
			text = "cannot take the user's rights";
		else if (!(h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)))
			text = dlerror();
		if (h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
			/* a link named libcuda.so.1 may lead to the stub: say where it leads */
			text = realpath(lm->l_name, real) ? real : lm->l_name;
		r = write(fds[1], text, strlen(text));
		_exit(h && r >= 0 ? 0 : 1);
	}
	close(fds[1]);
	while (n < (ssize_t)sizeof(buf) - 1 &&
	       ((r = read(fds[0], buf + n, sizeof(buf) - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
		n += r > 0 ? r : 0;
	buf[n] = 0;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	snprintf(path, size, "%s", n ? buf : "the loader said nothing");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int gr_driver_probe(const struct gr_identity *id, char *detail, size_t size)
{
	char lib[512];
	int loads = load_libcuda(id, lib, sizeof(lib));

	if (loads && strstr(lib, "/stubs/")) {
		snprintf(detail, size, "only the toolkit's stub %s", lib);
		return 0;
	}
	if (!loads) {
		snprintf(detail, size, "libcuda.so.1 does not load (%s)", lib);
		return 0;
	}
	if (access("/dev/nvidiactl", F_OK) || access("/dev/nvidia0", F_OK)) {
		snprintf(detail, size, "%s loads, but /dev/nvidiactl or /dev/nvidia0 is missing",
			 lib);
		return 0;
	}
	snprintf(detail, size, "%s, /dev/nvidiactl, /dev/nvidia0", lib);
	return 1;
}
