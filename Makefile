# gpurec build. Quiet by default (V=1 shows commands), out-of-tree objects in build/,
# warnings are errors, SAN=1 builds with ASan+UBSan.
#
#   make            ./gpurec (+ BPF objects, skeletons, vmlinux.h in build/)
#   make deps       install the Debian packages the build and the tests need (when missing;
#                   chromium for the HTML report's browser tests)
#   make test       everything that needs no GPU; last line "N passed, N failed"
#   make bench      benchmarks as ratios measured in one run
#   make stress     `make test` ROUNDS times (10) beside a looping `make -j2` (tests/stress.sh)
#   make fuzz       libFuzzer targets in build/fuzz/
#   make gpu-kit    build/gpurec-gpukit.tar.gz: gpurec, its libraries, samples, tests/gpu/
#   make gpu-check  the GPU validation (tests/gpu/README.md); refuses without a GPU

.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:

O	?= build
CC	?= cc
CLANG	?= clang
BPFTOOL	?= bpftool
NVCC	?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) nvcc)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

CFLAGS	?= -O2 -g
WARN	:= -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wformat=2
CFLAGS	+= $(WARN) -std=gnu11 -fno-omit-frame-pointer -D_GNU_SOURCE -I. -I$(O)
LDLIBS	:=
ifeq ($(SAN),1)
CFLAGS	+= -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDFLAGS	+= -fsanitize=address,undefined
endif

# ./gpurec for the default build dir; a build elsewhere (SAN=1 O=build-san) links its own copy
# there, so a sanitizer build never replaces the binary that README's commands and tests run.
BIN	:= $(if $(filter build,$(O)),gpurec,$(O)/gpurec)
# `record --cupti`'s injection library sits next to the binary, where the recorder looks for it.
CUPTI_SO	:= $(if $(filter build,$(O)),libgpurec_cupti.so,$(O)/libgpurec_cupti.so)
# record's NVTX tool, given to every traced command, sits there too
NVTX_SO		:= $(if $(filter build,$(O)),libgpurec_nvtx.so,$(O)/libgpurec_nvtx.so)

ARCH	:= $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

FORMAT_SRCS	:= $(wildcard format/*.c)
ANALYZE_SRCS	:= $(wildcard analyze/*.c analyze/*/*.c)
RECORD_SRCS	:= $(wildcard record/*.c record/*/*.c)
BPF_SRCS	:= $(wildcard bpf/*.bpf.c)
SKELS		:= $(patsubst bpf/%.bpf.c,$(O)/bpf/%.skel.h,$(BPF_SRCS))

FORMAT_OBJS	:= $(patsubst %.c,$(O)/%.o,$(FORMAT_SRCS)) $(O)/format/status_names.o
# the toolkit whose headers name cudaError_t and CUresult values (format/gen_status_names.sh)
CUDA_INC	?= $(firstword $(wildcard /usr/local/cuda/include) $(dir $(NVCC))../include)
# the HTML report's page, styles and scripts, compiled in (analyze/html/gen_html_assets.sh)
HTML_ASSETS	:= $(sort $(wildcard analyze/html/page/*))
ANALYZE_OBJS	:= $(patsubst %.c,$(O)/%.o,$(ANALYZE_SRCS)) $(O)/analyze/html/html_assets.o
RECORD_OBJS	:= $(patsubst %.c,$(O)/%.o,$(RECORD_SRCS))

FORMAT_LIB	:= $(O)/libgrformat.a
ANALYZE_LIB	:= $(O)/libgranalyze.a
RECORD_LIB	:= $(O)/libgrrecord.a

FORMAT_LIBS	:= -lzstd -lz
ANALYZE_LIBS	:= -lsqlite3 -ldw -lelf -lstdc++ $(FORMAT_LIBS)
RECORD_LIBS	:= -lbpf -lelf $(ANALYZE_LIBS)

UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRCS))
FUZZ_SRCS	:= $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_REPLAY	:= $(patsubst tests/fuzz/%.c,$(O)/tests/%_replay,$(FUZZ_SRCS))
FUZZ_BINS	:= $(patsubst tests/fuzz/%.c,$(O)/fuzz/%,$(FUZZ_SRCS))
TOOL_SRCS	:= $(wildcard tests/tools/*.c)
TOOL_BINS	:= $(patsubst tests/tools/%.c,$(O)/tests/tool_%,$(TOOL_SRCS))

.PHONY: all deps demo test test-bins stress bench fuzz clean check-deps format-check samples progs \
	gpu-kit gpu-check

all: $(BIN) $(CUPTI_SO) $(NVTX_SO)

deps:
	$(Q)./tests/install-deps.sh

# README's first command: set up, build, record a bundled sample, show the result. As root it
# needs no sudo; run by a user it asks sudo for installing packages and for recording only.
demo:
	$(Q)./tests/install-deps.sh --no-browser
	$(Q)$(MAKE) -s $(BIN) samples
	$(Q)O=$(O) GPUREC=$(abspath $(BIN)) ./samples/demo.sh

# --- BPF: vmlinux.h from the running kernel's BTF, CO-RE objects, skeletons ---
$(O)/vmlinux.h:
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(O)/bpf/%.bpf.o: bpf/%.bpf.c bpf/*.h $(O)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -Wall -Werror -D__TARGET_ARCH_$(ARCH) -I$(O) -Ibpf -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true

$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# --- C objects ---
$(O)/format/status_names.c: format/gen_status_names.sh
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)sh format/gen_status_names.sh $(CUDA_INC) > $@

$(O)/format/status_names.o: $(O)/format/status_names.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Iformat -MMD -MP -c $< -o $@

$(O)/analyze/html/html_assets.c: analyze/html/gen_html_assets.sh $(HTML_ASSETS)
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)sh analyze/html/gen_html_assets.sh analyze/html/page > $@

$(O)/analyze/html/html_assets.o: $(O)/analyze/html/html_assets.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(O)/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(RECORD_OBJS) $(O)/gpurec.o: $(SKELS)

# --- the CUPTI injection library (record --cupti): the only thing that links CUPTI ---
# convert.o and send.o are pure (no CUPTI call): unit tests and the stand-in tool link them too.
CUPTI_LIBDIR	?= $(firstword $(patsubst %/,%,$(dir $(wildcard /usr/local/cuda/lib64/libcupti.so.13 \
			/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13))) /usr/local/cuda/lib64)
CUPTI_PURE_OBJS	:= $(O)/cupti/convert.o $(O)/cupti/send.o
$(O)/cupti/%.o $(O)/tests/unit/test_cupti.o $(O)/tests/tools/cupti_feed.o: CFLAGS += -I$(CUDA_INC) -fPIC -fvisibility=hidden

# found next to itself first ($ORIGIN: a carried copy), then in the toolkit it was built against
$(CUPTI_SO): $(O)/cupti/inject.o $(CUPTI_PURE_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libgpurec_cupti.so -Wl,--no-undefined -o $@ $^ \
		-L$(CUPTI_LIBDIR) -Wl,-rpath,'$$ORIGIN:$(CUPTI_LIBDIR)' -l:libcupti.so.13 -lpthread

$(O)/tests/test_cupti $(O)/tests/tool_cupti_feed: $(CUPTI_PURE_OBJS)

# --- the NVTX injection library (nvtx/inject.c): NVTX's headers only, no CUDA library ---
# -Bsymbolic: the handlers' calls to the exported tap bind inside the library, without the PLT.
# The unit test links inject.o with a tap of its own that counts.
$(O)/nvtx/%.o $(O)/tests/unit/test_nvtx_inject.o: CFLAGS += -I$(CUDA_INC) -fPIC -fvisibility=hidden
# The library runs inside every traced program, so it never carries a sanitizer: ASan's runtime
# must come first in a program and aborts one that loads it later (SAN=1 tests the same code
# through test_nvtx_inject, built with it). Its objects are compiled apart for that.
SANITIZER_FLAGS	:= -fsanitize=% -fno-sanitize-recover=%
$(O)/nvtx/lib/%.o: nvtx/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(filter-out $(SANITIZER_FLAGS),$(CFLAGS)) -MMD -MP -c $< -o $@
$(NVTX_SO): $(O)/nvtx/lib/inject.o $(O)/nvtx/lib/tap.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(filter-out $(SANITIZER_FLAGS),$(LDFLAGS)) -shared -Wl,-soname,libgpurec_nvtx.so \
		-Wl,--no-undefined -Wl,-Bsymbolic -o $@ $^ -lpthread -ldl
$(O)/tests/test_nvtx_inject: $(O)/nvtx/inject.o

$(FORMAT_LIB): $(FORMAT_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(ANALYZE_LIB): $(ANALYZE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(RECORD_LIB): $(RECORD_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(O)/gpurec.o $(RECORD_LIB) $(ANALYZE_LIB) $(FORMAT_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(RECORD_LIBS)

# --- tests ---
# Unit tests link every library; test_format.c must only use format/ (check-deps enforces it).
$(O)/tests/test_%: $(O)/tests/unit/test_%.o $(RECORD_LIB) $(ANALYZE_LIB) $(FORMAT_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(RECORD_LIBS)

# Test helpers the end-to-end scripts run (tests/tools/NAME.c -> build/tests/tool_NAME).
$(O)/tests/tool_%: $(O)/tests/tools/%.o $(RECORD_LIB) $(ANALYZE_LIB) $(FORMAT_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(RECORD_LIBS)

# Fuzz targets also build without libFuzzer, as a replay driver over their corpus; they link
# every library, as unit tests do.
$(O)/tests/fuzz_%_replay: $(O)/tests/fuzz/fuzz_%.o $(O)/tests/fuzz/replay_main.o $(RECORD_LIB) $(ANALYZE_LIB) $(FORMAT_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(RECORD_LIBS)

# libFuzzer builds compile what they test with the fuzzer's instrumentation; undefined behaviour
# is a crash there, as with SAN=1, not a line in the log. The targets of what the recorder
# parses as root (ELF files, raw stacks) compile record/ too, whose sources include the BPF
# skeleton. Every target links the same instrumented objects (in $(O)/fuzz/obj/, generated
# sources included), compiled once: each target compiling every source took minutes.
FUZZ_CFLAGS	:= -g -O1 -std=gnu11 -D_GNU_SOURCE -I. -I$(O) -fsanitize=address,undefined \
		   -fno-sanitize-recover=undefined
fuzz_objs	= $(patsubst $(O)/%,$(O)/fuzz/obj/%,$(1))
FUZZ_RECORD	:= $(addprefix $(O)/fuzz/fuzz_,elf lines unwind cfi pylines procmaps rankenv cupti events pybuild pyresolve)
FUZZ_LIBS	= $(ANALYZE_LIBS)
$(FUZZ_BINS): $(call fuzz_objs,$(FORMAT_OBJS) $(ANALYZE_OBJS))
$(FUZZ_RECORD): $(call fuzz_objs,$(RECORD_OBJS))
$(FUZZ_RECORD): FUZZ_LIBS = $(RECORD_LIBS)
$(call fuzz_objs,$(RECORD_OBJS)): $(SKELS)

$(O)/fuzz/obj/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(O)/fuzz/obj/%.o: $(O)/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(O)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(FORMAT_SRCS) $(ANALYZE_SRCS) \
		$(O)/analyze/html/html_assets.c
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(filter %.o,$^) $(FUZZ_LIBS)

fuzz: $(FUZZ_BINS)

test-bins: $(BIN) $(CUPTI_SO) $(NVTX_SO) $(UNIT_BINS) $(FUZZ_REPLAY) $(TOOL_BINS) progs samples gpu-kit

progs:
	$(Q)$(MAKE) -s -C tests/progs O=$(abspath $(O))/progs NVCC=$(NVCC)

test: test-bins check-deps
	$(Q)O=$(O) GPUREC=$(abspath $(BIN)) ./tests/run.sh

bench: test-bins
	$(Q)O=$(O) ./tests/bench/run.sh

# The tests on a busy machine: tests/stress.sh builds its load in build-stress/.
ROUNDS	?= 10
stress:
	$(Q)O=$(O) ./tests/stress.sh $(ROUNDS)

# The GPU validation kit (tests/gpu/README.md). Its gpurec finds the libraries carried beside it
# through an RPATH (not RUNPATH: it covers their own dependencies too), so nothing goes into the
# environment the traced command inherits.
KIT	:= $(O)/gpurec-gpukit
# libstdc++ (only __cxa_demangle) and libgcc linked in: the carried libstdc++ of this build host
# asked for glibc 2.36, which would have refused hosts with 2.34-2.35 (RHEL 9, Ubuntu 22.04)
KIT_LIBS := $(patsubst -lstdc++,-l:libstdc++.a -static-libgcc,$(RECORD_LIBS))
$(O)/kit/gpurec: $(O)/gpurec.o $(RECORD_LIB) $(ANALYZE_LIB) $(FORMAT_LIB)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -Wl,-rpath,'$$ORIGIN/lib' -Wl,--disable-new-dtags -o $@ $^ $(KIT_LIBS)

gpu-kit: $(O)/kit/gpurec $(CUPTI_SO) $(NVTX_SO) samples
	$(Q)CUPTI_LIB=$(CUPTI_LIBDIR)/libcupti.so.13 ./tests/gpu/kit.sh $(O)/kit/gpurec $(O)/samples $(KIT) $(CUPTI_SO) \
		$(NVTX_SO)

gpu-check: $(BIN) samples
	$(Q)GPUREC=$(abspath $(BIN)) SAMPLES=$(abspath $(O))/samples ./tests/gpu/run.sh

samples:
	$(Q)$(MAKE) -s -C samples O=$(abspath $(O))/samples NVCC=$(NVCC)

# format/ never links libbpf nor includes record/, analyze/ or bpf/; analyze/ never sees bpf/, and
# its folders are layers whose includes and calls run one way only (tests/check_layers.py).
check-deps: $(ANALYZE_LIB)
	$(Q)! grep -nE '#include *"(\.\./)?(bpf|record|analyze)/|<bpf/|libbpf' format/*.[ch] \
		|| { echo "format/ must depend on libc, zstd and zlib only" >&2; exit 1; }
	$(Q)! grep -nE '#include *"(\.\./)?(bpf|record)/|<bpf/|\.skel\.h' $$(find analyze -name '*.[ch]') \
		|| { echo "analyze/ must not include bpf/ or record/" >&2; exit 1; }
	$(Q)O=$(O) ANALYZE_OBJS="$(ANALYZE_OBJS)" ./tests/check_layers.py

format-check:
	$(Q)clang-format --dry-run -Werror $$(git ls-files '*.c' '*.h')

clean:
	$(Q)rm -rf $(O) $(BIN) $(CUPTI_SO) $(NVTX_SO)

-include $(shell find $(O) -name '*.d' 2>/dev/null)

# Benchmark programs: tests/bench/bench_*.c, linked like unit tests.
BENCH_SRCS	:= $(wildcard tests/bench/bench_*.c)
BENCH_BINS	:= $(patsubst tests/bench/%.c,$(O)/tests/%,$(BENCH_SRCS))
$(O)/tests/bench_%: $(O)/tests/bench/bench_%.o $(RECORD_LIB) $(ANALYZE_LIB) $(FORMAT_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(RECORD_LIBS)
# the bench's own BPF objects, not gpurec's: the baseline, the cheapest uprobe there is (empty),
# and the count of what the scheduler hands to BPF (sched_delivery)
$(O)/tests/bench/%.bpf.o: tests/bench/%.bpf.c $(O)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -Wall -Werror -D__TARGET_ARCH_$(ARCH) -I$(O) -c $< -o $@
$(O)/tests/bench/%.skel.h: $(O)/tests/bench/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@
$(O)/tests/bench/bench_uprobe.o: $(O)/tests/bench/empty.skel.h
$(O)/tests/bench/bench_sched_delivery.o: $(O)/tests/bench/sched_delivery.skel.h
bench: $(BENCH_BINS)
# The format benchmark needs only the format library.
$(O)/tests/bench_format: $(O)/tests/bench/bench_format.o $(FORMAT_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(FORMAT_LIBS)
