// Benchmark load for the default stacks (tests/bench/run.sh), built -O2 WITHOUT frame pointers:
//   nofp_chain LAUNCHES [THREADS [SECONDS [DEPTH]]]
// THREADS threads each call chain() DEPTH deep (10 by default), whose innermost call makes
// LAUNCHES launches of one kernel as fast as it can (or for SECONDS when LAUNCHES is 0), then
// prints "ns_per_launch N total_launches M cpu_ns_per_launch C", as launch_loop does, plus the
// process's CPU time per launch (per thread's launch): on a busy machine, preemption does not
// count there.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

volatile int sink; // work after each call keeps it out of tail position

__global__ void tiny(float *x)
{
	if (x)
		x[threadIdx.x] = 0;
}

__attribute__((noinline)) long launch_loop(long launches, double seconds)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
	long n = 0;

	while (launches ? n < launches : std::chrono::steady_clock::now() < end) {
		for (int i = 0; i < 64; i++)
			tiny<<<4, 32>>>(nullptr);
		n += 64;
	}
	return n;
}

__attribute__((noinline)) long chain(int depth, long launches, double seconds)
{
	long n = depth > 1 ? chain(depth - 1, launches, seconds) : launch_loop(launches, seconds);

	sink = sink + 1;
	return n;
}

int main(int argc, char **argv)
{
	long launches = argc > 1 ? atol(argv[1]) : 200000;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	double seconds = argc > 3 ? atof(argv[3]) : 0;
	int depth = argc > 4 ? atoi(argv[4]) : 10;
	std::vector<long> done(threads);
	std::vector<std::thread> pool;
	auto t0 = std::chrono::steady_clock::now();
	struct timespec c0, c1;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	for (int t = 0; t < threads; t++)
		pool.emplace_back([&, t] { done[t] = chain(depth, launches, seconds); });
	for (auto &th : pool)
		th.join();
	double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	double cpu = (c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec);
	long total = 0;
	for (long n : done)
		total += n;
	printf("ns_per_launch %.1f total_launches %ld cpu_ns_per_launch %.1f\n", ns / (total / threads),
	       total, cpu / total);
	return 0;
}
