// Ground truth for --call-graph dwarf (tests/e2e/record_dwarf.sh): built -O2 WITHOUT frame
// pointers, so a frame-pointer walk cannot get past the innermost frame, while DWARF CFI can.
//   nofp N [unlink]: main -> outer -> N x middle -> inner, where inner launches
//   deep_kernel<<<2, 64>>> once (entry probe) and makes one cudaMemcpy H2D of 64 bytes (return
//   probe). With "unlink", the executable deletes itself first: the recorder must unwind with
//   the file it holds open.
//   nofp N fakefp: main -> with_fake_fp -> fake_fp_body -> N x middle -> inner, with rbp
//   pointing at a fake frame record the whole time: the frame-pointer walk past inner finds
//   0x3eaba2513f6961b9, then 0x7f0000001000, words that are no code, as it does in code built
//   without frame pointers whose rbp holds a pointer. The recorder must end the stack there.
//   nofp N wait FIFO: main -> first_launch launches deep_kernel<<<2, 64>>> once; then a byte
//   is read from FIFO (the test sends it when the recorder has the executable's unwind table),
//   then as "nofp N".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <cuda_runtime.h>

volatile int sink; // work after each call keeps it out of tail position

__global__ void deep_kernel(int *x)
{
	if (x)
		x[threadIdx.x] = 1;
}

extern "C" __attribute__((noinline)) void inner(int i)
{
	static char host[64];

	deep_kernel<<<2, 64>>>((int *)(long)i);
	cudaMemcpy((void *)0x7f0000001000ull, host, sizeof(host), cudaMemcpyHostToDevice);
	sink = sink + 1;
}

extern "C" __attribute__((noinline)) void middle(int i)
{
	inner(i);
	sink = sink + 1;
}

extern "C" __attribute__((noinline)) void outer(int n)
{
	for (int i = 0; i < n; i++)
		middle(i);
	sink = sink + 1;
}

extern "C" __attribute__((noinline)) void first_launch(void)
{
	deep_kernel<<<2, 64>>>(nullptr);
	sink = sink + 1;
}

// Block until a byte comes on @fifo: 0, or -1 when it cannot be read.
static int wait_for(const char *fifo)
{
	char byte;
	int fd = open(fifo, O_RDONLY), ok = fd >= 0 && read(fd, &byte, 1) == 1;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int fake_rounds;
// the saved rbp (a higher address, as a real chain), then a "return address" that is no code
static unsigned long long fake_frame[4] = {0, 0x3eaba2513f6961b9ull, 0, 0x7f0000001000ull};

// i lives in rbx across the calls; rbp is left alone (checked by tests/e2e/record_dwarf.sh)
extern "C" __attribute__((noinline)) void fake_fp_body(void)
{
	for (int i = 0; i < fake_rounds; i++)
		middle(i);
	sink = sink + 1;
}

// with_fake_fp(frame): call fake_fp_body with rbp = frame; the push keeps the call aligned
extern "C" void with_fake_fp(unsigned long long *frame);
asm(".text\n"
    ".globl with_fake_fp\n"
    ".type with_fake_fp, @function\n"
    "with_fake_fp:\n"
    "	push %rbp\n"
    "	mov %rdi, %rbp\n"
    "	call fake_fp_body\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size with_fake_fp, .-with_fake_fp\n");

int main(int argc, char **argv)
{
	char exe[4096];
	ssize_t len;

	if (argc > 2 && !strcmp(argv[2], "unlink")) {
		len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (len <= 0)
			return 2;
		exe[len] = 0;
		if (unlink(exe))
			return 2;
	}
	if (argc > 2 && !strcmp(argv[2], "fakefp")) {
		fake_rounds = atoi(argv[1]);
		fake_frame[0] = (unsigned long long)&fake_frame[2];
		with_fake_fp(fake_frame);
		return 0;
	}
	if (argc > 3 && !strcmp(argv[2], "wait")) {
		first_launch();
		if (wait_for(argv[3]))
			return 2;
	}
	outer(argc > 1 ? atoi(argv[1]) : 10);
	return 0;
}
