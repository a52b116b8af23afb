/* SPDX-License-Identifier: MIT */
/*
 * The tap (tap.h): the one function of libgpurec_nvtx.so the recorder puts a uprobe on. It does
 * nothing; what matters is its first instruction. Written in assembly as record/calibrate.c's
 * targets are: `push %rbp` is an instruction the kernel emulates at a uprobe hit, where a
 * compiler's choice (an endbr64, a sub from %rsp) would be single-stepped, a second trap per
 * NVTX call. Kept out of inject.c so that a unit test can link the handlers with a tap of its own.
 */
#include "tap.h"

__asm__(".text\n.p2align 4\n.globl gpurec_nvtx_tap\n.type gpurec_nvtx_tap, @function\n"
	"gpurec_nvtx_tap:\npush %rbp\nmov %rsp, %rbp\npop %rbp\nret\n"
	".size gpurec_nvtx_tap, .-gpurec_nvtx_tap\n");
