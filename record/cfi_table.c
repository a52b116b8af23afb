/* SPDX-License-Identifier: MIT */
/* Unwind tables from .eh_frame: see cfi_table.h. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "cfi_table.h"

/* DWARF register numbers on x86-64 */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA	16

/* A row being collected: @gap rows end an FDE, and give way to a row at the same address. */
struct row {
	struct gr_cfi_row r;
	int gap;
};

struct build {
	struct row *rows;
	size_t n, cap, max;
};

static int push(struct build *b, uint64_t pc, const struct gr_cfi_row *r, int gap)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct row *n;

		/* twice the cap: gap rows and duplicates go before the cap is checked */
		if (b->n >= 2 * b->max + 2)
			return -E2BIG;
		n = realloc(b->rows, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		b->rows = n;
		b->cap = cap;
	}
	b->rows[b->n] = (struct row){*r, gap};
	b->rows[b->n].r.pc = (uint32_t)pc;
	b->n++;
	return 0;
}

/* The size in bytes of a pointer encoded as @enc; 0 for one we do not read. */
static size_t enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	}
	return 0;
}

static uint64_t read_enc(const uint8_t *p, uint8_t enc)
{
	uint64_t v = 0;
	int32_t s4;
	int16_t s2;

	switch (enc & 0x0f) {
	case DW_EH_PE_udata4:
		memcpy(&s4, p, 4);
		return (uint32_t)s4;
	case DW_EH_PE_sdata4:
		memcpy(&s4, p, 4);
		return (uint64_t)(int64_t)s4;
	case DW_EH_PE_udata2:
		memcpy(&s2, p, 2);
		return (uint16_t)s2;
	case DW_EH_PE_sdata2:
		memcpy(&s2, p, 2);
		return (uint64_t)(int64_t)s2;
	}
	memcpy(&v, p, 8);
	return v;
}

/*
 * The highest DWARF register number a call-frame program may name: x86-64 numbers its registers
 * up to 130 (k7 is 125). libdw grows a frame's register array to the highest one named, up to
 * 2 GiB: a crafted .eh_frame (DW_CFA_offset_extended of register 2^27) would make the recorder,
 * running as root beside the user's program, allocate and fill that much.
 */
#define MAX_CFA_REG 255

/* A ULEB128 at *@p, before @end; moves *@p past it. -1 when it runs past @end or 64 bits. */
static int read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t byte = *(*p)++;

		*v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/*
 * Whether the call-frame program [@p, @end) names only registers up to MAX_CFA_REG, and every
 * instruction is one DWARF 5 or GNU defines (@addr_size: the bytes of DW_CFA_set_loc's
 * address, the FDE pointer encoding's). 0 when it does, -1 when it cannot be checked or names
 * one beyond: its FDE is left out, never handed to libdw.
 */
static int cfa_program_sane(const uint8_t *p, const uint8_t *end, size_t addr_size)
{
	while (p < end) {
		uint8_t op = *p++;
		uint64_t reg = 0, v;
		int has_reg = 0, skip_block = 0, operands = 0;

		switch (op >> 6) {
		case 1: /* DW_CFA_advance_loc: the delta is in the opcode */
		case 3: /* DW_CFA_restore: register < 64 */
			continue;
		case 2: /* DW_CFA_offset: register < 64, ULEB offset */
			operands = 1;
			break;
		default:
			switch (op) {
			case 0x00: /* nop */
			case 0x0a: /* remember_state */
			case 0x0b: /* restore_state */
			case 0x2d: /* GNU_window_save */
				continue;
			case 0x01: /* set_loc */
				if ((size_t)(end - p) < addr_size)
					return -1;
				p += addr_size;
				continue;
			case 0x02: /* advance_loc1, 2, 4 */
			case 0x03:
			case 0x04: {
				size_t n = op == 0x02 ? 1 : op == 0x03 ? 2 : 4;

				if ((size_t)(end - p) < n)
					return -1;
				p += n;
				continue;
			}
			case 0x0e: /* def_cfa_offset, def_cfa_offset_sf, GNU_args_size */
			case 0x13:
			case 0x2e:
				operands = 1;
				break;
			case 0x06: /* restore_extended, undefined, same_value, def_cfa_register */
			case 0x07:
			case 0x08:
			case 0x0d:
				has_reg = 1;
				break;
			case 0x05: /* offset_extended, def_cfa, offset_extended_sf, def_cfa_sf, */
			case 0x0c: /* val_offset, val_offset_sf, GNU_negative_offset_extended */
			case 0x11:
			case 0x12:
			case 0x14:
			case 0x15:
			case 0x2f:
				has_reg = operands = 1;
				break;
			case 0x09: /* register: two registers */
				if (read_uleb(&p, end, &reg) || reg > MAX_CFA_REG)
					return -1;
				has_reg = 1;
				break;
			case 0x0f: /* def_cfa_expression: a block */
				skip_block = 1;
				break;
			case 0x10: /* expression, val_expression: a register and a block */
			case 0x16:
				has_reg = skip_block = 1;
				break;
			default:
				return -1;
			}
		}
		if (has_reg && (read_uleb(&p, end, &reg) || reg > MAX_CFA_REG))
			return -1;
		/* an SLEB128 reads as a ULEB128 of the same length */
		if (operands && read_uleb(&p, end, &v))
			return -1;
		if (skip_block && (read_uleb(&p, end, &v) || v > (uint64_t)(end - p)))
			return -1;
		if (skip_block)
			p += v;
	}
	return 0;
}

/* The FDE pointer encoding ('R') of CIE @e's augmentation, or -1 when it cannot be read. */
static int aug_encoding(const Dwarf_CFI_Entry *e)
{
	const uint8_t *a = e->cie.augmentation_data;
	size_t i = 0, n = e->cie.augmentation_data_size;

	if (e->cie.augmentation[0] != 'z')
		return !e->cie.augmentation[0] ? DW_EH_PE_absptr : -1;
	for (const char *c = e->cie.augmentation + 1; *c; c++) {
		switch (*c) {
		case 'R':
			return i < n ? a[i] : -1;
		case 'P': {
			size_t sz;

			if (i >= n || !(sz = enc_size(a[i])))
				return -1;
			i += 1 + sz;
			break;
		}
		case 'L':
			i++;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

/*
 * The FDE pointer encoding of the CIE at @cie_off, or -1 when it cannot be read or its initial
 * instructions fail cfa_program_sane(); *@aug_data: whether its FDEs carry augmentation data
 * ('z') before their instructions. The CIE's augmentation data is libdw's, bounded by the
 * section.
 */
static int cie_encoding(const unsigned char *ident, Elf_Data *data, Dwarf_Off cie_off,
			int *aug_data)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	int enc;

	*aug_data = 0;
	if (dwarf_next_cfi(ident, data, true, cie_off, &next, &e) || !dwarf_cfi_cie_p(&e) ||
	    !e.cie.augmentation)
		return -1;
	enc = aug_encoding(&e);
	*aug_data = e.cie.augmentation[0] == 'z';
	if (enc < 0 || cfa_program_sane(e.cie.initial_instructions, e.cie.initial_instructions_end,
					enc_size((uint8_t)enc)))
		return -1;
	return enc;
}

/* Whether an FDE's instructions, after its range at @p (and its augmentation data when
 * @aug_data), pass cfa_program_sane(): 1 or 0. */
static int fde_program_sane(const uint8_t *p, const uint8_t *end, size_t addr_size, int aug_data)
{
	uint64_t len;

	if (aug_data && (read_uleb(&p, end, &len) || len > (uint64_t)(end - p)))
		return 0;
	if (aug_data)
		p += len;
	return !cfa_program_sane(p, end, addr_size);
}

/* The signed offset a DW_OP_plus_uconst of libdw's register rules carries. */
static int rule_offset(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops < 1 || ops[0].atom != DW_OP_call_frame_cfa)
		return -1;
	if (nops == 1) {
		*off = 0;
		return 0;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return 0;
	}
	return -1; /* a value (val_offset) or an expression */
}

/* The rule of @frame as one row; GR_CFI_NONE for what the walk cannot follow. */
static struct gr_cfi_row classify(Dwarf_Frame *frame)
{
	const struct gr_cfi_row none = {0};
	struct gr_cfi_row r = {0};
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	int64_t off;

	if (dwarf_frame_register(frame, REG_RA, mem, &ops, &nops))
		return r;
	/* undefined (ops set, none in it): nobody called this frame; same value: no rule */
	if (nops == 0) {
		r.kind = ops ? GR_CFI_END : GR_CFI_NONE;
		return r;
	}
	if (rule_offset(ops, nops, &off) || off != -8)
		return r;
	if (dwarf_frame_cfa(frame, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_bregx)
		return r;
	if ((int64_t)ops[0].number2 < 0 || ops[0].number2 > UINT16_MAX)
		return r;
	if (ops[0].number == REG_RSP)
		r.kind = GR_CFI_CFA_RSP;
	else if (ops[0].number == REG_RBP)
		r.kind = GR_CFI_CFA_RBP;
	else
		return r;
	r.cfa_off = (uint16_t)ops[0].number2;
	ops = NULL;
	if (dwarf_frame_register(frame, REG_RBP, mem, &ops, &nops))
		return none;
	if (nops == 0)
		return r; /* same value (or undefined): the caller's rbp is still in rbp */
	if (rule_offset(ops, nops, &off) || off % 8 || off / 8 < INT8_MIN || off / 8 > INT8_MAX)
		return none;
	r.kind |= GR_CFI_RBP_SAVED;
	r.rbp_off = (int8_t)(off / 8);
	return r;
}

/* The rows of the FDE covering [@lo, @hi), then a gap row at @hi. */
static int fde_rows(struct build *b, Dwarf_CFI *cfi, uint64_t lo, uint64_t hi)
{
	static const struct gr_cfi_row none = {0};
	uint64_t pc = lo;
	int err;

	while (pc < hi) {
		Dwarf_Frame *frame;
		Dwarf_Addr start, end;
		struct gr_cfi_row r;

		if (dwarf_cfi_addrframe(cfi, pc, &frame))
			break;
		r = classify(frame);
		if (dwarf_frame_info(frame, &start, &end, NULL) < 0)
			end = hi;
		free(frame);
		err = push(b, pc, &r, 0);
		if (err)
			return err;
		/* the row's range must move on, or a crafted program loops here */
		if (end <= pc)
			break;
		pc = end;
	}
	return push(b, hi, &none, 1);
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->r.pc != y->r.pc)
		return x->r.pc < y->r.pc ? -1 : 1;
	return y->gap - x->gap; /* gaps first: the real row at the same address wins */
}

static int same_rule(const struct gr_cfi_row *a, const struct gr_cfi_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->rbp_off == b->rbp_off;
}

/* Sort, keep the last row of each address, merge neighbours with one rule; into @t. */
static int finish(struct build *b, struct gr_cfi_table *t)
{
	size_t n = 0;

	if (b->n) /* none: rows is NULL, which qsort() must not get */
		qsort(b->rows, b->n, sizeof(*b->rows), cmp_row);
	for (size_t i = 0; i < b->n; i++) {
		if (i + 1 < b->n && b->rows[i + 1].r.pc == b->rows[i].r.pc)
			continue;
		if (n && same_rule(&b->rows[n - 1].r, &b->rows[i].r))
			continue;
		b->rows[n++] = b->rows[i];
	}
	if (n > b->max)
		return -E2BIG;
	t->rows = malloc((n ? n : 1) * sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		t->rows[i] = b->rows[i].r;
	t->n = n;
	return 0;
}

static Elf_Scn *find_eh_frame(Elf *elf, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, shdr) || shdr->sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (name && !strcmp(name, ".eh_frame"))
			return scn;
	}
	return NULL;
}

static int build_elf(Elf *elf, size_t max_rows, struct gr_cfi_table *t)
{
	struct build b = {.max = max_rows};
	const unsigned char *ident;
	Dwarf_Off off = 0, next, cie_off = (Dwarf_Off)-1;
	Dwarf_CFI *cfi = NULL;
	Elf_Data *data;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	int enc = -1, err = -ENOENT, aug_data = 0;

	memset(t, 0, sizeof(*t));
	ident = (const unsigned char *)elf_getident(elf, NULL);
	if (!ident || ident[EI_CLASS] != ELFCLASS64 || !(scn = find_eh_frame(elf, &shdr)))
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	cfi = dwarf_getcfi_elf(elf);
	if (!data || !data->d_buf || !cfi)
		goto out;
	err = 0;
	for (;;) {
		Dwarf_CFI_Entry e;
		const uint8_t *p;
		uint64_t lo, range;
		size_t sz;

		if (dwarf_next_cfi(ident, data, true, off, &next, &e))
			break; /* the end, or what follows cannot be read */
		if (next <= off)
			break;
		off = next;
		if (dwarf_cfi_cie_p(&e))
			continue;
		t->fdes++;
		if (e.fde.CIE_pointer != cie_off) {
			cie_off = e.fde.CIE_pointer;
			enc = cie_encoding(ident, data, cie_off, &aug_data);
		}
		p = e.fde.start;
		sz = enc < 0 ? 0 : enc_size(enc);
		/* pcrel or absolute only; indirect and data-relative are for personality data */
		if (!sz || (enc & 0x70 & ~DW_EH_PE_pcrel) || (enc & DW_EH_PE_indirect) ||
		    (size_t)(e.fde.end - p) < 2 * sz ||
		    !fde_program_sane(p + 2 * sz, e.fde.end, sz, aug_data)) {
			t->skipped++;
			continue;
		}
		lo = read_enc(p, enc);
		if (enc & DW_EH_PE_pcrel)
			lo += shdr.sh_addr + (uint64_t)(p - (const uint8_t *)data->d_buf);
		range = read_enc(p + sz, enc & 0x0f);
		if (!range)
			continue;
		if (lo > UINT32_MAX || range > UINT32_MAX - lo) {
			t->skipped++;
			continue;
		}
		err = fde_rows(&b, cfi, lo, lo + range);
		if (err)
			goto out;
	}
	err = finish(&b, t);
out:
	free(b.rows);
	if (cfi)
		dwarf_cfi_end(cfi);
	if (err) {
		free(t->rows);
		memset(t, 0, sizeof(*t));
	}
	return err;
}

int gr_cfi_table_build(int fd, size_t max_rows, struct gr_cfi_table *t)
{
	Elf *elf;
	int err;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		memset(t, 0, sizeof(*t));
		return -ENOENT;
	}
	err = build_elf(elf, max_rows, t);
	elf_end(elf);
	return err;
}

int gr_cfi_table_build_mem(const void *image, size_t size, size_t max_rows, struct gr_cfi_table *t)
{
	Elf *elf;
	int err;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)image, size);
	if (!elf) {
		memset(t, 0, sizeof(*t));
		return -ENOENT;
	}
	err = build_elf(elf, max_rows, t);
	elf_end(elf);
	return err;
}

const struct gr_cfi_row *gr_cfi_table_find(const struct gr_cfi_table *t, uint32_t pc)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

void gr_cfi_table_free(struct gr_cfi_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
