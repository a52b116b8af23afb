// One rank of a data-parallel job (started by rank_launcher with RANK, WORLD_SIZE, ... set):
//   rank_step STEPS EXTRA_US
// setup: cudaStreamCreate(&S), cudaMalloc(4096); then STEPS times:
//   step_forward<<<528000, 256, 0, S>>> (on the simulator: 500 waves x 2 us = 1000 us of GPU),
//   step_update<<<16, 256, 0, S>>> (3 us), cudaStreamSynchronize(S),
//   then EXTRA_US of host work: a busy loop on the thread's own CPU time, so that the step's wall
//   time grows by at least EXTRA_US however busy the machine is;
// With RANK_STEP_NVTX set, each step's launches and sync are the NVTX range "gpu" and its host
// work (even none) the range "host work" (tests/e2e/report_nvtx.sh: the pace by range).
// With RANK_STEP_GO=PATH, the rank creates PATH.ready.RANK after its setup and begins its steps
// only once PATH exists (at most 60 s): ranks recorded by recorders of their own start together.
// teardown: cudaFree, cudaStreamDestroy. Each step is one iteration of 3 calls (2 launches, 1
// sync): STEPS iterations. Prints "rank_step: rank=R steps=N launches=N run_delay_ns=N
// timeslices=N": R from RANK ("-" if unset), and the kernel's own accounting of the thread at its
// end (/proc/thread-self/schedstat): the time it waited for a CPU, and how many times it ran.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>
#include <unistd.h>
#include <nvtx3/nvToolsExt.h>

__global__ void step_forward(float *x)
{
	if (x)
		x[threadIdx.x] += 1;
}

__global__ void step_update(float *x)
{
	if (x)
		x[threadIdx.x] *= 0.5f;
}

static double cpu_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 40, launches = 0;
	double extra_us = argc > 2 ? atof(argv[2]) : 0;
	cudaStream_t s = nullptr;
	float *d = nullptr;
	volatile unsigned long spin = 0;

	bool nvtx = getenv("RANK_STEP_NVTX") != nullptr;

	cudaStreamCreate(&s);
	cudaMalloc(&d, 4096);
	if (const char *go = getenv("RANK_STEP_GO")) {
		char ready[4096];
		FILE *r;

		snprintf(ready, sizeof(ready), "%s.ready.%s", go,
			 getenv("RANK") ? getenv("RANK") : "-");
		if ((r = fopen(ready, "w")))
			fclose(r);
		for (int i = 0; i < 60000 && access(go, F_OK); i++)
			usleep(1000);
	}
	for (int i = 0; i < steps; i++) {
		if (nvtx)
			nvtxRangePushA("gpu");
		step_forward<<<528000, 256, 0, s>>>(d), launches++;
		step_update<<<16, 256, 0, s>>>(d), launches++;
		cudaStreamSynchronize(s);
		if (nvtx) {
			nvtxRangePop();
			nvtxRangePushA("host work");
		}
		if (extra_us > 0) {
			double until = cpu_us() + extra_us;

			while (cpu_us() < until)
				spin++;
		}
		if (nvtx)
			nvtxRangePop();
	}
	cudaFree(d);
	cudaStreamDestroy(s);
	unsigned long long oncpu = 0, delay = 0, slices = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu %llu", &oncpu, &delay, &slices) != 3)
			delay = slices = 0;
		fclose(f);
	}
	printf("rank_step: rank=%s steps=%d launches=%d run_delay_ns=%llu timeslices=%llu\n",
	       getenv("RANK") ? getenv("RANK") : "-", steps, launches, delay, slices);
	return 0;
}
