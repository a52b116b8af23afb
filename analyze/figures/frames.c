/* SPDX-License-Identifier: MIT */
/*
 * Frames described and chosen (frames.h): Python frames from the model's PYFRAME records, native
 * ones from its symbols and mappings.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/util/json.h"
#include "frames.h"

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

void gr_frame_describe(const struct gr_model *m, uint32_t pid, uint64_t value, struct gr_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->value = value;
	if (GR_FRAME_IS_PYTHON(value)) {
		const struct gr_pyframe *py = gr_model_pyframe(m, value);

		f->kind = GR_FRAME_KIND_PYTHON;
		if (py) {
			f->file = py->file;
			f->line = py->line;
			f->function = py->function;
		}
		return;
	}
	const struct gr_symbol *sym = gr_model_symbol(m, pid, value);
	const struct gr_mapping *map = gr_model_mapping(m, pid, value);

	f->kind = GR_FRAME_KIND_NATIVE;
	f->function = sym ? sym->name : NULL;
	if (sym && sym->line && sym->file && *sym->file) {
		f->file = sym->file;
		f->line = sym->line;
	}
	if (map) {
		f->module = basename_of(map->path);
		f->offset = value - map->start + map->pgoff;
	}
}

const char *gr_frame_format(const struct gr_frame *f, char *buf, size_t len)
{
	if (f->kind == GR_FRAME_KIND_PYTHON) {
		if (!f->function)
			snprintf(buf, len, "python:?");
		else
			snprintf(buf, len, "%s:%" PRIu32 " %s", f->file, f->line, f->function);
	} else if (f->function && f->file) {
		/* the source file's path is the build machine's: its name says enough */
		snprintf(buf, len, "%s:%" PRIu32 " %s", basename_of(f->file), f->line, f->function);
	} else if (f->function && f->module) {
		snprintf(buf, len, "%s (%s)", f->function, f->module);
	} else if (f->function) {
		snprintf(buf, len, "%s", f->function);
	} else if (f->module) {
		snprintf(buf, len, "%s+0x%" PRIx64, f->module, f->offset);
	} else {
		snprintf(buf, len, "0x%" PRIx64, f->value);
	}
	return buf;
}

void gr_frame_json(struct gr_json *j, const struct gr_frame *f)
{
	int py = f->kind == GR_FRAME_KIND_PYTHON;

	gr_json_object_flat(j);
	gr_json_kv_str(j, "kind", py ? "python" : "native");
	gr_json_kv_str(j, "file", f->file);
	gr_json_key(j, "line");
	if ((py && f->function) || (!py && f->file))
		gr_json_u64(j, f->line);
	else
		gr_json_null(j);
	gr_json_kv_str(j, "function", f->function);
	gr_json_kv_str(j, "module", f->module);
	gr_json_object_end(j);
}

int gr_frames_any_python(const struct gr_model *m)
{
	size_t n;
	const struct gr_stack *st = gr_model_stacks(m, &n);

	for (size_t i = 1; i < n; i++)
		if (gr_frames_python(&st[i], st[i].nframes) >= 0)
			return 1;
	return 0;
}

int gr_frames_python(const struct gr_stack *st, uint32_t n)
{
	for (uint32_t i = 0; i < n && i < st->nframes; i++)
		if (GR_FRAME_IS_PYTHON(st->frames[i]))
			return (int)i;
	return -1;
}

static int listed(const char *const *paths, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(paths[i], path))
			return 1;
	return 0;
}

/* NVIDIA's own shared libraries: every instruction in them is the library's, not the program's. */
static int cuda_library_file(const char *path)
{
	static const char *const prefixes[] = {
	    "libcuda",	   "libnccl",	  "libcublas", "libcudnn",     "libcufft", "libcurand",
	    "libcusparse", "libcusolver", "libnvrtc",  "libnvJitLink", "libcupti", "libnvidia",
	};
	const char *base = basename_of(path);

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/*
 * The runtime's own code inside a file that also holds the program's: nvcc links the static
 * runtime (its default) into the executable, so only the symbol tells the runtime's functions
 * (its entry points cudaXxx, the __cuda/__cudart internals, the libcudart_static_ helpers)
 * from the user's. A frame without a symbol there is taken for the runtime's: the user's
 * functions keep their names unless the file was stripped, and then nothing names them anyway.
 */
static int runtime_symbol(const char *name)
{
	static const char *const prefixes[] = {"cuda", "__cuda", "libcudart_static_", "cudart::"};

	if (!name)
		return 1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/*
 * A frame in CUDA library code: the runtime or driver called itself, not the program. Files the
 * trace lists as CUDA libraries (NAME classes LIBRARY and UNPROBED) are library code whole when
 * they are NVIDIA's libraries (or got no probes: cuBLAS and its kind); a program or library of
 * the user's that got probes holds the runtime linked in, and there only the runtime's symbols
 * are library code.
 */
static int in_cuda_library(const struct gr_model *m, uint32_t pid, uint64_t addr)
{
	const struct gr_mapping *map = gr_model_mapping(m, pid, addr);
	const char *const *libs, *const *unprobed;
	const struct gr_symbol *sym;
	size_t nlibs, nunprobed;

	if (!map)
		return 0;
	unprobed = gr_model_unprobed_libraries(m, &nunprobed);
	if (listed(unprobed, nunprobed, map->path))
		return 1;
	libs = gr_model_libraries(m, &nlibs);
	if (!listed(libs, nlibs, map->path))
		return 0;
	if (cuda_library_file(map->path))
		return 1;
	sym = gr_model_symbol(m, pid, addr);
	return runtime_symbol(sym ? sym->name : NULL);
}

/* nvcc's generated launch stub of a kernel: the launch's own code, not a line the user wrote. */
static int launch_stub(const struct gr_model *m, uint32_t pid, uint64_t addr)
{
	const struct gr_symbol *sym = gr_model_symbol(m, pid, addr);

	return sym && !strncmp(sym->name, "__device_stub__", 15);
}

int gr_frames_launcher(const struct gr_model *m, const struct gr_stack *st, uint32_t n)
{
	int first = -1;

	for (uint32_t i = 0; i < n && i < st->nframes; i++) {
		if (GR_FRAME_IS_PYTHON(st->frames[i]))
			continue;
		if (first < 0)
			first = (int)i;
		if (!in_cuda_library(m, st->pid, st->frames[i]) &&
		    !launch_stub(m, st->pid, st->frames[i]))
			return (int)i;
	}
	return first;
}
