/* SPDX-License-Identifier: MIT */
/*
 * Reads code objects out of a live CPython process. A cold resolution costs three reads of the
 * process (the code object; the headers of its file name, function name and line table; their
 * data), each one process_vm_readv of several pieces; what it finds is kept per (pid, code), so
 * every later frame of the same code object is a hash lookup and a binary search.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pylines.h"
#include "pyresolve.h"
#include "record/u64map.h"

/* Caps on what a code object may make us read: larger is taken as garbage. */
#define MAX_STR_BYTES	  (4u << 10)
#define MAX_TABLE_BYTES	  (64u << 10)
#define MAX_OBJECT_OFFSET 4096 /* any field offset pybuild.h gives must be below this */

/* PyASCIIObject.state: the bits pybuild.h names */
#define STATE_KIND(s) ((s) >> 2 & 7)
#define STATE_COMPACT (1u << 5)
#define STATE_ASCII   (1u << 6)

struct code_entry {
	char *file, *function;
	struct gr_py_lines lines;
};

struct proc_cache {
	struct gr_u64map codes; /* code object address -> struct code_entry * */
};

struct gr_pyresolve {
	struct gr_u64map procs;	   /* pid -> struct proc_cache * (0 once forgotten) */
	gr_pyresolve_read_fn read; /* how a process's memory is read */
	void *read_ctx;
	int no_vm_readv; /* process_vm_readv is missing here: go to /proc/PID/mem */
};

static int read_process(void *ctx, uint32_t pid, const struct iovec *local,
			const struct iovec *remote, unsigned n);

int gr_pyresolve_new(struct gr_pyresolve **out)
{
	int err = gr_pyresolve_new_reader(out, read_process, NULL);

	if (!err)
		(*out)->read_ctx = *out;
	return err;
}

int gr_pyresolve_new_reader(struct gr_pyresolve **out, gr_pyresolve_read_fn read, void *ctx)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->read = read;
	(*out)->read_ctx = ctx;
	return 0;
}

static void code_entry_free(struct code_entry *e)
{
	if (!e)
		return;
	free(e->file);
	free(e->function);
	gr_py_lines_free(&e->lines);
	free(e);
}

static void proc_cache_free(struct proc_cache *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->codes.cap; i++)
		if (p->codes.keys[i])
			code_entry_free((struct code_entry *)(uintptr_t)p->codes.vals[i]);
	gr_u64map_free(&p->codes);
	free(p);
}

void gr_pyresolve_forget(struct gr_pyresolve *r, uint32_t pid)
{
	uint64_t *v = r && pid ? gr_u64map_get(&r->procs, pid) : NULL;

	if (v) {
		proc_cache_free((struct proc_cache *)(uintptr_t)*v);
		*v = 0;
	}
}

void gr_pyresolve_free(struct gr_pyresolve *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->procs.cap; i++)
		if (r->procs.keys[i])
			proc_cache_free((struct proc_cache *)(uintptr_t)r->procs.vals[i]);
	gr_u64map_free(&r->procs);
	free(r);
}

/* The same reads through /proc/PID/mem, where process_vm_readv is refused or missing. */
static int read_procmem(uint32_t pid, const struct iovec *local, const struct iovec *remote,
			unsigned n)
{
	char path[32];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%u/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? -ESRCH : -EFAULT;
	for (unsigned i = 0; i < n && !err; i++) {
		ssize_t got = pread(fd, local[i].iov_base, local[i].iov_len,
				    (off_t)(uintptr_t)remote[i].iov_base);

		/* an exited process keeps /proc/PID while a zombie, with no memory: reads give 0 */
		if (got == 0 && local[i].iov_len)
			err = -ESRCH;
		else if (got != (ssize_t)local[i].iov_len)
			err = -EFAULT;
	}
	close(fd);
	return err;
}

/* The live reader (a gr_pyresolve_read_fn, @ctx the struct gr_pyresolve): the process itself. */
static int read_process(void *ctx, uint32_t pid, const struct iovec *local,
			const struct iovec *remote, unsigned n)
{
	struct gr_pyresolve *r = ctx;
	size_t want = 0;
	ssize_t got;

	for (unsigned i = 0; i < n; i++)
		want += local[i].iov_len;
	if (r->no_vm_readv)
		return read_procmem(pid, local, remote, n);
	got = process_vm_readv((pid_t)pid, local, n, remote, n, 0);
	if (got == (ssize_t)want)
		return 0;
	if (got >= 0)
		return -EFAULT; /* a piece reached unmapped memory */
	if (errno == ESRCH)
		return -ESRCH;
	if (errno == ENOSYS)
		r->no_vm_readv = 1;
	if (errno == ENOSYS || errno == EPERM)
		return read_procmem(pid, local, remote, n);
	return -EFAULT;
}

/* Reads @n pieces of process @pid through the reader: remote[i] into local[i], as it says. */
static int read_mem(struct gr_pyresolve *r, uint32_t pid, const struct iovec *local,
		    const struct iovec *remote, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		/* an address range that wraps is garbage, whatever the kernel would say */
		if ((uintptr_t)remote[i].iov_base + remote[i].iov_len <
		    (uintptr_t)remote[i].iov_base)
			return -EFAULT;
	return r->read(r->read_ctx, pid, local, remote, n);
}

static uint64_t load_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t load_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Appends code point @c to @out as UTF-8 (at most 4 bytes); surrogates and NUL become U+FFFD. */
static char *put_utf8(char *out, uint32_t c)
{
	if (!c || (c >= 0xd800 && c <= 0xdfff))
		c = 0xfffd;
	if (c < 0x80) {
		*out++ = (char)c;
	} else if (c < 0x800) {
		*out++ = (char)(0xc0 | c >> 6);
		*out++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*out++ = (char)(0xe0 | c >> 12);
		*out++ = (char)(0x80 | (c >> 6 & 0x3f));
		*out++ = (char)(0x80 | (c & 0x3f));
	} else {
		*out++ = (char)(0xf0 | c >> 18);
		*out++ = (char)(0x80 | (c >> 12 & 0x3f));
		*out++ = (char)(0x80 | (c >> 6 & 0x3f));
		*out++ = (char)(0x80 | (c & 0x3f));
	}
	return out;
}

/* A str object's header, checked: where its characters are and how many bytes they take. */
struct str_ref {
	uint64_t data;
	uint32_t bytes, kind, ascii;
};

static int str_locate(const struct gr_py_layout *L, uint64_t addr, const uint8_t *head,
		      struct str_ref *s)
{
	uint64_t length = load_u64(head + L->str_length);
	uint32_t state = load_u32(head + L->str_state);

	s->kind = STATE_KIND(state);
	s->ascii = !!(state & STATE_ASCII);
	/* legacy strings (data behind a pointer) are not compact: 3.10's C API can still make them
	 */
	if (!(state & STATE_COMPACT) || (s->kind != 1 && s->kind != 2 && s->kind != 4) ||
	    (s->ascii && s->kind != 1) || length > MAX_STR_BYTES / s->kind)
		return -EFAULT;
	s->bytes = (uint32_t)length * s->kind;
	s->data = addr + (s->ascii ? L->str_ascii_size : L->str_compact_size);
	return 0;
}

/* The characters of @s (read into @raw) as a new NUL-terminated UTF-8 string in @out. */
static int str_to_utf8(const struct str_ref *s, const uint8_t *raw, char **out)
{
	uint32_t n = s->bytes / s->kind;
	char *str = malloc((size_t)n * 4 + 1), *p = str;

	if (!str)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = raw[i];

		if (s->kind == 2) {
			uint16_t u;

			memcpy(&u, raw + 2 * i, sizeof(u));
			c = u;
		} else if (s->kind == 4) {
			c = load_u32(raw + 4 * i);
		}
		if ((s->ascii && c >= 0x80) || c > 0x10ffff) {
			free(str);
			return -EFAULT;
		}
		p = put_utf8(p, c);
	}
	*p = 0;
	*out = str;
	return 0;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* Whether @L's offsets are ones this file can read with its fixed buffers. */
static int layout_usable(const struct gr_py_layout *L)
{
	return L->code_firstlineno + 4 <= MAX_OBJECT_OFFSET &&
	       max_u32(max_u32(L->object_type, L->code_filename),
		       max_u32(max_u32(L->code_name, L->code_qualname), L->code_linetable)) +
		       8 <=
		   MAX_OBJECT_OFFSET &&
	       L->str_length + 8 <= L->str_ascii_size && L->str_state + 4 <= L->str_ascii_size &&
	       L->str_ascii_size <= L->str_compact_size && L->str_compact_size <= 256 &&
	       L->bytes_size + 8 <= L->bytes_data && L->bytes_data <= 256;
}

/* Reads the code object at @code: its file, function and decoded line table into @e. */
static int read_code(struct gr_pyresolve *r, uint32_t pid, const struct gr_py_build *b,
		     uint64_t bias, uint64_t code, struct code_entry *e)
{
	const struct gr_py_layout *L = &b->layout;
	uint32_t name_at = L->code_qualname ? L->code_qualname : L->code_name;
	uint32_t span =
	    max_u32(L->code_firstlineno + 4, max_u32(max_u32(L->object_type, L->code_filename),
						     max_u32(name_at, L->code_linetable)) +
						 8);
	uint8_t obj[MAX_OBJECT_OFFSET], fhead[256], nhead[256], thead[256];
	uint8_t fraw[MAX_STR_BYTES], nraw[MAX_STR_BYTES], *traw = NULL;
	uint64_t file, name, table, table_size;
	struct str_ref fs, ns;
	int err;

	err = read_mem(r, pid, &(struct iovec){obj, span},
		       &(struct iovec){(void *)(uintptr_t)code, span}, 1);
	if (err)
		return err;
	if (load_u64(obj + L->object_type) != b->code_type + bias)
		return -EFAULT;
	file = load_u64(obj + L->code_filename);
	name = load_u64(obj + name_at);
	table = load_u64(obj + L->code_linetable);

	/* the three objects' headers: each is at least that long, so no read runs past one */
	err = read_mem(r, pid,
		       (struct iovec[]){{fhead, L->str_ascii_size},
					{nhead, L->str_ascii_size},
					{thead, L->bytes_data}},
		       (struct iovec[]){{(void *)(uintptr_t)file, L->str_ascii_size},
					{(void *)(uintptr_t)name, L->str_ascii_size},
					{(void *)(uintptr_t)table, L->bytes_data}},
		       3);
	if (err)
		return err;
	table_size = load_u64(thead + L->bytes_size); /* a Py_ssize_t: negative is huge here */
	if (str_locate(L, file, fhead, &fs) || str_locate(L, name, nhead, &ns) ||
	    table_size > MAX_TABLE_BYTES)
		return -EFAULT;
	traw = malloc(table_size ? table_size : 1);
	if (!traw)
		return -ENOMEM;
	err = read_mem(r, pid,
		       (struct iovec[]){{fraw, fs.bytes}, {nraw, ns.bytes}, {traw, table_size}},
		       (struct iovec[]){{(void *)(uintptr_t)fs.data, fs.bytes},
					{(void *)(uintptr_t)ns.data, ns.bytes},
					{(void *)(uintptr_t)(table + L->bytes_data), table_size}},
		       3);
	if (!err)
		err = str_to_utf8(&fs, fraw, &e->file);
	if (!err)
		err = str_to_utf8(&ns, nraw, &e->function);
	if (!err) {
		err = gr_py_lines_decode(traw, table_size, L->hexversion,
					 (int32_t)load_u32(obj + L->code_firstlineno), &e->lines);
		if (err == -EINVAL)
			err = -EFAULT; /* a table that does not decode is garbage memory */
	}
	free(traw);
	return err;
}

/* The cache of process @pid, made when missing. */
static int proc_get(struct gr_pyresolve *r, uint32_t pid, struct proc_cache **out)
{
	uint64_t *v = gr_u64map_get(&r->procs, pid);
	struct proc_cache *p;
	int err;

	if (v && *v) {
		*out = (struct proc_cache *)(uintptr_t)*v;
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	err = gr_u64map_put(&r->procs, pid, (uintptr_t)p);
	if (err) {
		free(p);
		return err;
	}
	*out = p;
	return 0;
}

int gr_pyresolve_frame(struct gr_pyresolve *r, uint32_t pid, const struct gr_py_build *b,
		       uint64_t bias, uint64_t code, uint32_t lasti, struct gr_py_site *out)
{
	struct proc_cache *p;
	struct code_entry *e;
	uint64_t *v;
	int err;

	if (b->unreadable || !layout_usable(&b->layout))
		return -EINVAL;
	if (!pid)
		return -ESRCH;
	if (!code)
		return -EFAULT;
	err = proc_get(r, pid, &p);
	if (err)
		return err;
	v = gr_u64map_get(&p->codes, code);
	if (v) {
		e = (struct code_entry *)(uintptr_t)*v;
	} else {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		err = read_code(r, pid, b, bias, code, e);
		if (!err)
			err = gr_u64map_put(&p->codes, code, (uintptr_t)e);
		if (err) {
			code_entry_free(e);
			return err;
		}
	}
	out->file = e->file;
	out->function = e->function;
	out->line = gr_py_lines_find(&e->lines, lasti);
	return 0;
}
