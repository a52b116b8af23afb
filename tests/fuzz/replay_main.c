/* SPDX-License-Identifier: MIT */
/*
 * Replays a fuzz target's corpus without libFuzzer: calls LLVMFuzzerTestOneInput() on every
 * regular file in the directories (or on the files) named on the command line, in name order,
 * and prints one TAP line: "ok - fuzz_NAME corpus (N inputs)". The target's name is the program
 * name without its "_replay" suffix. A crash or a failed invariant aborts, which the test runner
 * reports with the last input named on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f) {
		printf("# cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *p;

			cap = cap ? cap * 2 : 65536;
			p = realloc(buf, cap);
			if (!p) {
				fclose(f);
				free(buf);
				return -1;
			}
			buf = p;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	fclose(f);
	fprintf(stderr, "replaying %s\n", path);
	/* an exact-size copy, so that ASan sees any read past the input */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		if (len)
			memcpy(exact, buf, len);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	free(buf);
	(*n)++;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, long *n)
{
	struct dirent *e;
	char **names = NULL;
	size_t count = 0, cap = 0;
	int err = 0;
	DIR *d = opendir(dir);

	if (!d) {
		printf("# cannot open %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (count == cap) {
			char **p = realloc(names, sizeof(*names) * (cap = cap ? cap * 2 : 64));

			if (!p) {
				err = -1;
				break;
			}
			names = p;
		}
		names[count] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!names[count]) {
			err = -1;
			break;
		}
		sprintf(names[count++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, count, sizeof(*names), cmp);
	for (size_t i = 0; i < count; i++) {
		struct stat st;

		if (!err && !stat(names[i], &st) && S_ISREG(st.st_mode))
			err = run_file(names[i], n);
		free(names[i]);
	}
	free(names);
	return err;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	size_t len = strlen(base);
	long n = 0;
	int err = 0;

	if (len > 7 && !strcmp(base + len - 7, "_replay"))
		len -= 7;
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR|FILE...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc && !err; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			printf("# cannot open %s: %s\n", argv[i], strerror(errno));
			err = -1;
		} else if (S_ISDIR(st.st_mode)) {
			err = run_dir(argv[i], &n);
		} else {
			err = run_file(argv[i], &n);
		}
	}
	if (err || n == 0) {
		printf("not ok - %.*s corpus (%ld inputs%s)\n", (int)len, base, n,
		       err ? ", unreadable input" : "");
		return 1;
	}
	printf("ok - %.*s corpus (%ld inputs)\n", (int)len, base, n);
	return 0;
}
