/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "elf.h"

struct sym {
	uint64_t addr, size;
	const char *name;
};

struct seg {
	uint64_t vaddr, offset, filesz;
};

struct gr_elf {
	Elf *elf;
	int dyn;
	struct sym *syms; /* functions, sorted by address */
	size_t nsyms;
	struct sym *by_name; /* same, sorted by name */
	struct seg *segs;
	size_t nsegs;
	uint8_t build_id[64];
	size_t build_id_len;
};

static int cmp_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* prefer the sized, then the global-looking (shorter) name for aliases */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_name(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int read_symbols(struct gr_elf *e)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	while ((scn = elf_nextscn(e->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		/* the entries of the data libelf read from the file, not those sh_size claims */
		for (size_t i = 0; i < data->d_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			name = elf_strptr(e->elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			if (e->nsyms == cap) {
				struct sym *n;

				cap = cap ? cap * 2 : 1024;
				n = realloc(e->syms, cap * sizeof(*n));
				if (!n)
					return -ENOMEM;
				e->syms = n;
			}
			e->syms[e->nsyms++] = (struct sym){s.st_value, s.st_size, name};
		}
	}
	/* a stripped file has no function symbol: syms stays NULL, which qsort and memcpy forbid */
	if (!e->nsyms)
		return 0;
	qsort(e->syms, e->nsyms, sizeof(*e->syms), cmp_addr);
	e->by_name = malloc(e->nsyms * sizeof(*e->by_name));
	if (!e->by_name)
		return -ENOMEM;
	memcpy(e->by_name, e->syms, e->nsyms * sizeof(*e->syms));
	qsort(e->by_name, e->nsyms, sizeof(*e->by_name), cmp_name);
	return 0;
}

static void read_build_id(struct gr_elf *e, const void *buf, size_t len)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	Elf_Data data = {
	    .d_buf = (void *)buf, .d_size = len, .d_type = ELF_T_NHDR, .d_version = EV_CURRENT};

	while ((off = gelf_getnote(&data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)buf + name_off, "GNU", 4) &&
		    nh.n_descsz <= sizeof(e->build_id)) {
			memcpy(e->build_id, (const char *)buf + desc_off, nh.n_descsz);
			e->build_id_len = nh.n_descsz;
			return;
		}
	}
}

static int read_segments(struct gr_elf *e)
{
	size_t n, fsize = 0;

	if (elf_getphdrnum(e->elf, &n) || !elf_rawfile(e->elf, &fsize))
		return -EINVAL;
	e->segs = calloc(n ? n : 1, sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, i, &ph))
			continue;
		/* only the bytes the file has: offsets stay inside it, and their sums below 2^64 */
		if (ph.p_type == PT_LOAD && ph.p_offset < fsize)
			e->segs[e->nsegs++] = (struct seg){
			    ph.p_vaddr, ph.p_offset,
			    ph.p_filesz < fsize - ph.p_offset ? ph.p_filesz : fsize - ph.p_offset};
		if (ph.p_type == PT_NOTE && !e->build_id_len) {
			Elf_Data *d =
			    elf_getdata_rawchunk(e->elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR);

			if (d)
				read_build_id(e, d->d_buf, d->d_size);
		}
	}
	return 0;
}

int gr_elf_open(struct gr_elf **out, int fd)
{
	struct gr_elf *e;
	GElf_Ehdr eh;
	int err = -EINVAL;

	*out = NULL;
	elf_version(EV_CURRENT);
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &eh))
		goto err;
	e->dyn = eh.e_type == ET_DYN;
	err = read_segments(e);
	if (err)
		goto err;
	err = read_symbols(e);
	if (err)
		goto err;
	*out = e;
	return 0;
err:
	gr_elf_free(e);
	return err;
}

void gr_elf_free(struct gr_elf *e)
{
	if (!e)
		return;
	if (e->elf)
		elf_end(e->elf);
	free(e->syms);
	free(e->by_name);
	free(e->segs);
	free(e);
}

int gr_elf_is_dyn(const struct gr_elf *e)
{
	return e->dyn;
}

/* The symbol named @name, NULL when none (by_name is NULL when there are no symbols). */
static const struct sym *find_name(const struct gr_elf *e, const char *name)
{
	struct sym key = {.name = name};

	if (!e->nsyms)
		return NULL;
	return bsearch(&key, e->by_name, e->nsyms, sizeof(key), cmp_name);
}

int gr_elf_func_addr(const struct gr_elf *e, const char *name, uint64_t *vaddr)
{
	const struct sym *s = find_name(e, name);

	if (!s)
		return -ENOENT;
	*vaddr = s->addr;
	return 0;
}

int gr_elf_func_offset(const struct gr_elf *e, const char *name, uint64_t *offset)
{
	const struct sym *s = find_name(e, name);

	if (!s)
		return -ENOENT;
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct seg *g = &e->segs[i];

		/* differences, not ends: a hostile segment's end can wrap past 2^64 */
		if (s->addr >= g->vaddr && s->addr - g->vaddr < g->filesz) {
			*offset = s->addr - g->vaddr + g->offset;
			return 0;
		}
	}
	return -ENOENT;
}

int gr_elf_offset_to_vaddr(const struct gr_elf *e, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct seg *g = &e->segs[i];

		if (off >= g->offset && off - g->offset < g->filesz) {
			*vaddr = off - g->offset + g->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int gr_elf_read(const struct gr_elf *e, uint64_t vaddr, void *buf, size_t n)
{
	size_t fsize;
	const char *raw = elf_rawfile(e->elf, &fsize);

	for (size_t i = 0; raw && i < e->nsegs; i++) {
		const struct seg *g = &e->segs[i];

		if (vaddr < g->vaddr || vaddr - g->vaddr >= g->filesz)
			continue;
		if (n > g->filesz - (vaddr - g->vaddr) ||
		    g->offset + (vaddr - g->vaddr) + n > fsize)
			return -ENOENT;
		memcpy(buf, raw + g->offset + (vaddr - g->vaddr), n);
		return 0;
	}
	return -ENOENT;
}

int gr_elf_symbolize(const struct gr_elf *e, uint64_t vaddr, const char **name, uint64_t *start,
		     uint64_t *size)
{
	size_t lo = 0, hi = e->nsyms;

	/* last symbol with addr <= vaddr */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (e->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	/* first of the aliases at that address: cmp_addr put the best one first */
	for (hi = lo - 1; hi > 0 && e->syms[hi - 1].addr == e->syms[lo - 1].addr; hi--)
		;
	const struct sym *s = &e->syms[hi];

	if (s->size && vaddr - s->addr >= s->size)
		return -ENOENT;
	*name = s->name;
	*start = s->addr;
	*size = s->size;
	return 0;
}

size_t gr_elf_build_id(const struct gr_elf *e, const uint8_t **id)
{
	*id = e->build_id;
	return e->build_id_len;
}

void gr_elf_for_each_func(const struct gr_elf *e, void (*fn)(const char *name, void *arg),
			  void *arg)
{
	/* by address, the best alias of each (cmp_addr put it first), as elf.h promises */
	for (size_t i = 0; i < e->nsyms; i++)
		if (!i || e->syms[i].addr != e->syms[i - 1].addr)
			fn(e->syms[i].name, arg);
}

/* The header of the first section named @name into *@out: 1, or 0 when there is none. */
static int find_section(const struct gr_elf *e, const char *name, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e->elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(e->elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, out) && (n = elf_strptr(e->elf, shstrndx, out->sh_name)) &&
		    !strcmp(n, name))
			return 1;
	}
	return 0;
}

int gr_elf_has_section(const struct gr_elf *e, const char *name)
{
	GElf_Shdr sh;

	return find_section(e, name, &sh);
}

uint64_t gr_elf_section_size(const struct gr_elf *e, const char *name)
{
	GElf_Shdr sh;

	return find_section(e, name, &sh) ? sh.sh_size : 0;
}

/* The first dynamic symbol named @name that @want accepts, into *@out: 0, or -ENOENT. */
static int find_dynsym(const struct gr_elf *e, const char *name, int (*want)(const GElf_Sym *),
		       GElf_Sym *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < data->d_size / sh.sh_entsize; i++) {
			const char *n;

			if (gelf_getsym(data, i, out) && want(out) &&
			    (n = elf_strptr(e->elf, sh.sh_link, out->st_name)) && !strcmp(n, name))
				return 0;
		}
	}
	return -ENOENT;
}

static int is_undefined(const GElf_Sym *s)
{
	return s->st_shndx == SHN_UNDEF;
}

static int is_defined_object(const GElf_Sym *s)
{
	return s->st_shndx != SHN_UNDEF && GELF_ST_TYPE(s->st_info) == STT_OBJECT;
}

int gr_elf_imports(const struct gr_elf *e, const char *name)
{
	GElf_Sym s;

	return !find_dynsym(e, name, is_undefined, &s);
}

int gr_elf_object(const struct gr_elf *e, const char *name, uint64_t *vaddr, uint64_t *size)
{
	GElf_Sym s;
	int err = find_dynsym(e, name, is_defined_object, &s);

	if (!err) {
		*vaddr = s.st_value;
		*size = s.st_size;
	}
	return err;
}

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

const char *gr_demangle(const char *name, char *buf, size_t size)
{
	char *d;
	int status = -1;

	if (!strncmp(name, "_Z", 2) && (d = __cxa_demangle(name, NULL, NULL, &status))) {
		snprintf(buf, size, "%s", d);
		free(d);
		return buf;
	}
	snprintf(buf, size, "%s", name);
	return buf;
}
