// Benchmark load: THREADS threads each make LAUNCHES launches of one kernel as fast as they
// can (or for SECONDS when LAUNCHES is 0), at most RATE launches/s per thread when RATE > 0,
// then print "ns_per_launch N total_launches M".
// Run on the real libcudart without a GPU, each launch is a real call that fails fast.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

__global__ void tiny(float *x)
{
	if (x)
		x[threadIdx.x] = 0;
}

int main(int argc, char **argv)
{
	long launches = argc > 1 ? atol(argv[1]) : 200000;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	double seconds = argc > 3 ? atof(argv[3]) : 0;
	double rate = argc > 4 ? atof(argv[4]) : 0;
	std::vector<long> done(threads);
	std::vector<std::thread> pool;
	auto t0 = std::chrono::steady_clock::now();

	for (int t = 0; t < threads; t++)
		pool.emplace_back([&, t] {
			long n = 0;
			auto end = t0 + std::chrono::duration<double>(seconds);

			while (launches ? n < launches : std::chrono::steady_clock::now() < end) {
				for (int i = 0; i < 64; i++)
					tiny<<<4, 32>>>(nullptr);
				n += 64;
				if (rate > 0)
					std::this_thread::sleep_until(
						t0 + std::chrono::duration<double>(n / rate));
			}
			done[t] = n;
		});
	for (auto &th : pool)
		th.join();
	double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
	long total = 0;
	for (long n : done)
		total += n;
	printf("ns_per_launch %.1f total_launches %ld\n", ns / (total / threads), total);
	return 0;
}
