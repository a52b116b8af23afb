/* SPDX-License-Identifier: MIT */
/*
 * record/cfi_table: the unwind table of this test's own executable, whose functions below are
 * written in assembly with their CFI spelled out, so every row is known: a frame-pointer
 * function, one without frame pointers and a big frame, one whose CFA is a DWARF expression
 * (as a PLT entry's), an outermost one (return address undefined), and one naming a register
 * number no machine has, which is left out. Then damaged copies of
 * the executable: the builder must fail cleanly or build a table that is still sorted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/cfi_table.h"
#include "record/elf.h"
#include "test.h"

/*
 * Byte offsets of each rule: push %rbp (1 byte), mov %rsp,%rbp (3), sub $0x40,%rsp (4), nop (1),
 * leave (1), ret (1); sub $0x1008,%rsp (7), add $0x1008,%rsp (7).
 */
asm(".text\n"
    ".p2align 4\n"
    ".globl cfi_fp_fn\n"
    ".type cfi_fp_fn, @function\n"
    "cfi_fp_fn:\n"
    ".cfi_startproc\n"
    "	push %rbp\n"
    ".cfi_def_cfa_offset 16\n"
    ".cfi_offset %rbp, -16\n"
    "	mov %rsp, %rbp\n"
    ".cfi_def_cfa_register %rbp\n"
    "	sub $0x40, %rsp\n"
    "	nop\n"
    "	leave\n"
    ".cfi_def_cfa %rsp, 8\n"
    ".cfi_restore %rbp\n"
    "	ret\n"
    ".cfi_endproc\n"
    ".size cfi_fp_fn, .-cfi_fp_fn\n"
    ".p2align 4\n"
    ".globl cfi_nofp_fn\n"
    ".type cfi_nofp_fn, @function\n"
    "cfi_nofp_fn:\n"
    ".cfi_startproc\n"
    "	sub $0x1008, %rsp\n"
    ".cfi_def_cfa_offset 0x1010\n"
    "	add $0x1008, %rsp\n"
    ".cfi_def_cfa_offset 8\n"
    "	ret\n"
    ".cfi_endproc\n"
    ".size cfi_nofp_fn, .-cfi_nofp_fn\n"
    ".p2align 4\n"
    ".globl cfi_expr_fn\n"
    ".type cfi_expr_fn, @function\n"
    "cfi_expr_fn:\n"
    ".cfi_startproc\n"
    /* DW_CFA_def_cfa_expression: DW_OP_breg7 (rsp) 8, DW_OP_deref */
    ".cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x06\n"
    "	nop\n"
    "	ret\n"
    ".cfi_endproc\n"
    ".size cfi_expr_fn, .-cfi_expr_fn\n"
    ".p2align 4\n"
    ".globl cfi_end_fn\n"
    ".type cfi_end_fn, @function\n"
    "cfi_end_fn:\n"
    ".cfi_startproc\n"
    ".cfi_undefined %rip\n"
    "	nop\n"
    "	ret\n"
    ".cfi_endproc\n"
    ".size cfi_end_fn, .-cfi_end_fn\n"
    /* a hostile FDE: DW_CFA_offset_extended of register 2^27, which libdw would make room for
     * (2 GiB of register rules): left out, no row */
    ".p2align 4\n"
    ".globl cfi_hostile_fn\n"
    ".type cfi_hostile_fn, @function\n"
    "cfi_hostile_fn:\n"
    ".cfi_startproc\n"
    "	nop\n"
    ".cfi_escape 0x05, 0x80, 0x80, 0x80, 0x40, 0x01\n"
    "	ret\n"
    ".cfi_endproc\n"
    ".size cfi_hostile_fn, .-cfi_hostile_fn\n");

static struct gr_cfi_table self;
static struct gr_elf *self_elf;

static uint32_t addr_of(const char *name)
{
	uint64_t v = 0;

	CHECK(!gr_elf_func_addr(self_elf, name, &v));
	return (uint32_t)v;
}

/* The row at @pc is {@kind, @cfa_off, @rbp_off}. */
static void check_row(uint32_t pc, uint8_t kind, uint16_t cfa_off, int8_t rbp_off, int line)
{
	const struct gr_cfi_row *r = gr_cfi_table_find(&self, pc);

	if (!r || r->kind != kind || r->cfa_off != cfa_off || r->rbp_off != rbp_off) {
		printf("#   line %d: row at %#x: kind %d cfa %u rbp %d, want %d %u %d\n", line, pc,
		       r ? r->kind : -1, r ? r->cfa_off : 0, r ? r->rbp_off : 0, kind, cfa_off,
		       rbp_off);
		test_failed_checks++;
		test_case_failed = 1;
	}
}
#define ROW(pc, kind, cfa, rbp) check_row(pc, kind, cfa, rbp, __LINE__)

static void test_known_rows(void)
{
	uint32_t a = addr_of("cfi_fp_fn"), b = addr_of("cfi_nofp_fn");
	uint32_t c = addr_of("cfi_expr_fn"), d = addr_of("cfi_end_fn");
	uint32_t h = addr_of("cfi_hostile_fn");

	CHECK(self.n > 100);
	/* the hostile FDE only */
	CHECK_EQ_U64(self.skipped, 1);
	ROW(h, GR_CFI_NONE, 0, 0);
	ROW(h + 1, GR_CFI_NONE, 0, 0);
	/* frame pointers: push, mov, then rbp-based until leave */
	ROW(a + 0, GR_CFI_CFA_RSP, 8, 0);
	ROW(a + 1, GR_CFI_CFA_RSP | GR_CFI_RBP_SAVED, 16, -2);
	ROW(a + 3, GR_CFI_CFA_RSP | GR_CFI_RBP_SAVED, 16, -2);
	ROW(a + 4, GR_CFI_CFA_RBP | GR_CFI_RBP_SAVED, 16, -2);
	ROW(a + 9, GR_CFI_CFA_RBP | GR_CFI_RBP_SAVED, 16, -2);
	ROW(a + 10, GR_CFI_CFA_RSP, 8, 0);
	/* past the function's end, before the next: no rule */
	ROW(a + 11, GR_CFI_NONE, 0, 0);
	ROW(b - 1, GR_CFI_NONE, 0, 0);
	/* no frame pointer, a frame over 4 KiB */
	ROW(b + 0, GR_CFI_CFA_RSP, 8, 0);
	ROW(b + 7, GR_CFI_CFA_RSP, 0x1010, 0);
	ROW(b + 13, GR_CFI_CFA_RSP, 0x1010, 0);
	ROW(b + 14, GR_CFI_CFA_RSP, 8, 0);
	ROW(b + 15, GR_CFI_NONE, 0, 0);
	/* an expression the walk cannot evaluate: a frame-pointer step there */
	ROW(c + 0, GR_CFI_NONE, 0, 0);
	ROW(c + 1, GR_CFI_NONE, 0, 0);
	/* the outermost frame */
	ROW(d + 0, GR_CFI_END, 0, 0);
	ROW(d + 1, GR_CFI_END, 0, 0);
	CHECK(!gr_cfi_table_find(&self, 0));
}

/* Sorted, one row per address, no two neighbours with the same rule. */
static int well_formed(const struct gr_cfi_table *t)
{
	for (size_t i = 1; i < t->n; i++) {
		const struct gr_cfi_row *p = &t->rows[i - 1], *r = &t->rows[i];

		if (p->pc >= r->pc)
			return 0;
		if (p->kind == r->kind && p->cfa_off == r->cfa_off && p->rbp_off == r->rbp_off)
			return 0;
	}
	return 1;
}

static void test_well_formed(void)
{
	CHECK(well_formed(&self));
}

static void test_cap(void)
{
	struct gr_cfi_table t;
	int fd = open("/proc/self/exe", O_RDONLY);

	CHECK(fd >= 0);
	CHECK_EQ_U64(gr_cfi_table_build(fd, 10, &t), (uint64_t)-E2BIG);
	CHECK(!t.rows && !t.n);
	CHECK_EQ_U64(gr_cfi_table_build(fd, self.n, &t), 0);
	CHECK_EQ_U64(t.n, self.n);
	gr_cfi_table_free(&t);
	close(fd);
}

static void test_not_elf(void)
{
	static const char text[] = "#!/bin/sh\necho not an ELF file\n";
	struct gr_cfi_table t;

	CHECK_EQ_U64(gr_cfi_table_build_mem(text, sizeof(text), 1000, &t), (uint64_t)-ENOENT);
	CHECK(!t.rows && !t.n);
}

/*
 * Damaged copies: cut short, and with bytes of .eh_frame overwritten. Either an error or a
 * table still sorted; never a crash (ASan build: SAN=1).
 */
static void test_damaged(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;
	uint8_t *img;
	unsigned seed = 12345, built = 0, bad = 0;

	CHECK(fd >= 0 && !fstat(fd, &st));
	img = malloc(st.st_size);
	CHECK(img && pread(fd, img, st.st_size, 0) == st.st_size);
	for (int round = 0; round < 200; round++) {
		uint8_t *copy = malloc(st.st_size);
		size_t size = st.st_size;
		struct gr_cfi_table t;

		memcpy(copy, img, st.st_size);
		if (round % 4 == 0) {
			size = (size_t)rand_r(&seed) % st.st_size;
		} else {
			/* bytes anywhere past the ELF header */
			for (int k = 0; k < 64; k++)
				copy[64 + (size_t)rand_r(&seed) % (st.st_size - 64)] =
				    rand_r(&seed);
		}
		if (!gr_cfi_table_build_mem(copy, size, GR_CFI_MAX_ROWS, &t)) {
			built++;
			bad += !well_formed(&t);
		}
		gr_cfi_table_free(&t);
		free(copy);
	}
	CHECK(built > 0);
	CHECK_EQ_U64(bad, 0);
	free(img);
	close(fd);
}

int main(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);

	if (fd < 0 || gr_elf_open(&self_elf, fd) || gr_cfi_table_build(fd, 1 << 20, &self)) {
		printf("not ok - cannot read the test's own executable\n");
		return 1;
	}
	RUN_TEST(test_known_rows);
	RUN_TEST(test_well_formed);
	RUN_TEST(test_cap);
	RUN_TEST(test_not_elf);
	RUN_TEST(test_damaged);
	gr_cfi_table_free(&self);
	gr_elf_free(self_elf);
	close(fd);
	TEST_EXIT();
}
