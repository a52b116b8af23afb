// Four threads launching through the per-thread default stream (built with
// --default-stream per-thread, so launches go through cudaLaunchKernel_ptsz).
//   thread t (0..3): 250 x worker<<<(t+1, 1, 1), (64, 1, 1)>>>
#include <cstdio>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

__global__ void worker(float *x, int t)
{
	if (x)
		x[t] = t;
}

int main()
{
	std::vector<std::thread> pool;

	for (int t = 0; t < 4; t++)
		pool.emplace_back([t] {
			for (int i = 0; i < 250; i++)
				worker<<<t + 1, 64>>>(nullptr, t);
		});
	for (auto &th : pool)
		th.join();
	return 0;
}
