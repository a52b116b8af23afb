// Steps whose bound the report must name (issue 28, tests/e2e/report_bound.sh), on the
// simulator: a kernel takes waves x 2 us (at least 3 us), a launch call 5 us of host time, a
// copy 2 us + bytes / bandwidth, cudaMalloc and cudaFree 10 us, and cudaFree waits for the
// device first (samples/sim/README.md). Each mode runs STEPS steps:
//   bound gpu STEPS:    on stream a, 4 launches of 250 us (1056 x 125 blocks of 256 threads:
//                       125 waves); on stream b, 2 cudaMemcpyAsync H2D of 256 KiB from pinned
//                       memory (overlapped with the kernels); cudaEventRecord(ev, a);
//                       cudaEventSynchronize(ev). The host waits ~1 ms of a ~1.03 ms step:
//                       GPU-bound; the 4 launches are a fusion run, and not the limit.
//   bound host STEPS:   1000 us of CPU work (a busy loop on the thread's CPU time, outside any
//                       CUDA call), 3 launches of 3 us, cudaStreamSynchronize: host-bound.
//   bound launch STEPS: 64 launches of 3 us kernels (k<<<1, 32>>>) on one stream, then
//                       cudaStreamSynchronize: the host spends 64 x 5 us in launch calls, the
//                       GPU keeps up: launch-bound (when the launch calls are timed).
//   bound free STEPS:   cudaMalloc 1 MiB, a 1000 us kernel (500 waves), cudaFree: the free
//                       waits for the kernel: allocation-bound.
//   bound blocked STEPS: a second thread and the step's take turns, as two threads sharing the
//                       GIL do: after each step the other thread has the turn for 2 ms (asleep),
//                       and the step's thread sleeps on a semaphore, outside any CUDA call,
//                       until it is handed back; a step is 2 launches and a stream sync:
//                       blocked.
// Prints "bound: MODE steps=N".
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuda_runtime.h>
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>

#define COPY_BYTES (256 * 1024)

__global__ void work(float *x)
{
	if (x)
		x[threadIdx.x] += 1;
}

__global__ void tiny(float *x)
{
	if (x)
		x[threadIdx.x] = 0;
}

static double cpu_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

// Not inlined, never a CUDA call: host work on the thread's own CPU time, so that a busy
// machine lengthens it but never shortens it.
__attribute__((noinline)) static void host_work(double us)
{
	double end = cpu_us() + us;

	while (cpu_us() < end)
		;
}

static void gpu(int steps)
{
	cudaStream_t a = nullptr, b = nullptr;
	cudaEvent_t ev = nullptr;
	void *pinned = nullptr, *dev = nullptr;

	cudaStreamCreate(&a);
	cudaStreamCreate(&b);
	cudaEventCreate(&ev);
	cudaMallocHost(&pinned, 2 * COPY_BYTES);
	cudaMalloc(&dev, 2 * COPY_BYTES);
	for (int i = 0; i < steps; i++) {
		for (int k = 0; k < 4; k++)
			work<<<dim3(1056, 125), 256, 0, a>>>(nullptr);
		for (int c = 0; c < 2; c++)
			cudaMemcpyAsync((char *)dev + c * COPY_BYTES, (char *)pinned + c * COPY_BYTES,
					COPY_BYTES, cudaMemcpyHostToDevice, b);
		cudaEventRecord(ev, a);
		cudaEventSynchronize(ev);
	}
	cudaStreamSynchronize(b);
}

static void host(int steps)
{
	cudaStream_t s = nullptr;

	cudaStreamCreate(&s);
	for (int i = 0; i < steps; i++) {
		host_work(1000);
		for (int k = 0; k < 3; k++)
			tiny<<<1, 32, 0, s>>>(nullptr);
		cudaStreamSynchronize(s);
	}
}

static void launch(int steps)
{
	cudaStream_t s = nullptr;

	cudaStreamCreate(&s);
	for (int i = 0; i < steps; i++) {
		for (int k = 0; k < 64; k++)
			tiny<<<1, 32, 0, s>>>(nullptr);
		cudaStreamSynchronize(s);
	}
}

static void free_step(int steps)
{
	for (int i = 0; i < steps; i++) {
		void *tmp = nullptr;

		cudaMalloc(&tmp, 1 << 20);
		work<<<dim3(1056, 500), 256>>>((float *)tmp);
		cudaFree(tmp);
	}
}

static sem_t step_turn, other_turn;
static std::atomic<int> done;

static void *other(void *)
{
	for (;;) {
		sem_wait(&other_turn);
		if (done)
			return nullptr;
		usleep(2000);
		sem_post(&step_turn);
	}
}

static void blocked(int steps)
{
	cudaStream_t s = nullptr;
	pthread_t t;

	cudaStreamCreate(&s);
	sem_init(&step_turn, 0, 1);
	sem_init(&other_turn, 0, 0);
	pthread_create(&t, nullptr, other, nullptr);
	for (int i = 0; i < steps; i++) {
		sem_wait(&step_turn);
		for (int k = 0; k < 2; k++)
			tiny<<<1, 32, 0, s>>>(nullptr);
		cudaStreamSynchronize(s);
		sem_post(&other_turn);
	}
	sem_wait(&step_turn);
	done = 1;
	sem_post(&other_turn);
	pthread_join(t, nullptr);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int steps = argc > 2 ? atoi(argv[2]) : 50;

	if (!strcmp(mode, "gpu"))
		gpu(steps);
	else if (!strcmp(mode, "host"))
		host(steps);
	else if (!strcmp(mode, "launch"))
		launch(steps);
	else if (!strcmp(mode, "free"))
		free_step(steps);
	else if (!strcmp(mode, "blocked"))
		blocked(steps);
	else {
		fprintf(stderr, "usage: bound gpu|host|launch|free|blocked [STEPS]\n");
		return 2;
	}
	printf("bound: %s steps=%d\n", mode, steps);
	return 0;
}
