/* SPDX-License-Identifier: MIT */
/*
 * Test helper: what record/python/pybuild.c makes of an ELF file, in the "name value" lines of
 * tests/python/py_offsets.c, plus its version and whether it is readable.
 *
 *   py_build FILE   "not cpython", or the layout and "version X.Y.Z", "unreadable WHY"
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "record/elf.h"
#include "record/python/pybuild.h"

#define P(field) printf(#field " %u\n", (unsigned)b.layout.field)

int main(int argc, char **argv)
{
	struct gr_py_build b;
	struct gr_elf *e;
	int fd, is;

	if (argc != 2) {
		fprintf(stderr, "usage: py_build FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || gr_elf_open(&e, fd)) {
		perror(argv[1]);
		return 1;
	}
	is = gr_py_build_examine(e, argv[1], &b);
	if (is <= 0 || b.unreadable) {
		if (is < 0)
			printf("error %d\n", is);
		else if (!is)
			printf("not cpython\n");
		else
			printf("version %s\nunreadable %s\n", b.version, b.unreadable);
		gr_elf_free(e);
		close(fd);
		return is < 0;
	}
	printf("version %s\n", b.version);
	printf("hexversion %u\nchain %u\n", b.layout.hexversion, b.layout.chain);
	P(interp_head);
	P(threads_head);
	P(tstate_next);
	P(tstate_native_tid);
	P(tstate_pthread_id);
	P(tstate_frame);
	P(cframe_current);
	P(frame_previous);
	P(frame_code);
	P(frame_instr);
	P(frame_owner);
	P(object_type);
	P(code_filename);
	P(code_name);
	P(code_qualname);
	P(code_linetable);
	P(code_firstlineno);
	P(code_adaptive);
	P(bytes_size);
	P(bytes_data);
	P(str_length);
	P(str_state);
	P(str_ascii_size);
	P(str_compact_size);
	printf("eval_size_nonzero %d\ncode_type_nonzero %d\n", b.eval_size != 0, b.code_type != 0);
	gr_elf_free(e);
	close(fd);
	return 0;
}
