/*
 * Loads every library named on the command line, in order, with RTLD_NOW | RTLD_GLOBAL (a later
 * one may need an earlier one: libcublas needs libcublasLt), then exits 0; exits 1 at the first
 * that does not load. It calls nothing in them: what the recorder makes of a library that is
 * only mapped is the point (record_unprobed.sh).
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL)) {
			fprintf(stderr, "dlopen_all: %s\n", dlerror());
			return 1;
		}
	}
	return 0;
}
