/* SPDX-License-Identifier: MIT */
/*
 * A native frame between two Python frames: tests/progs/py/cuda_sites.py calls this through
 * ctypes with a Python callback, which makes CUDA calls. Built with frame pointers.
 */
__attribute__((noinline)) void pycallback_call(void (*fn)(void))
{
	fn();
	__asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays on the stack */
}
