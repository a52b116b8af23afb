// A parent and a forked child both launching:
//   parent: 100 x parent_kernel<<<2, 32>>>, fork, wait, 10 x parent_kernel<<<2, 32>>>
//   child:  50 x child_kernel<<<3, 32>>>, exit 0
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void parent_kernel(float *x)
{
	if (x)
		x[0] = 1;
}

__global__ void child_kernel(float *x)
{
	if (x)
		x[0] = 2;
}

int main()
{
	for (int i = 0; i < 100; i++)
		parent_kernel<<<2, 32>>>(nullptr);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 50; i++)
			child_kernel<<<3, 32>>>(nullptr);
		_exit(0);
	}
	waitpid(pid, nullptr, 0);
	for (int i = 0; i < 10; i++)
		parent_kernel<<<2, 32>>>(nullptr);
	return 0;
}
