// The runtime capture surface beyond launches and plain copies, one call each unless said
// (tests/e2e/record_surface.sh asserts these exact counts; without a driver every call fails,
// the arguments are still the real ones):
//   alloc (8): cudaMalloc 4096, cudaMalloc 8192, cudaMallocManaged 1024, cudaMallocAsync 2048,
//              cudaMallocHost 65536, cudaHostAlloc 131072, cudaHostRegister 262144,
//              cudaMallocHost 100
//   free (6):  cudaFree x2, cudaFreeAsync, cudaFreeHost x2, cudaHostUnregister
//   memset (2): cudaMemset 512, cudaMemsetAsync 256
//   copy (7):  cudaMemcpy2D 16 x 8 H2D, cudaMemcpy2DAsync 32 x 4 D2H, cudaMemcpy3D 8x4x2 D2D,
//              cudaMemcpyPeer 1000, cudaMemcpyToSymbol 64, cudaMemcpyFromSymbol 32,
//              cudaMemcpyAsync 4 D2H
//   sync (6):  cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize,
//              cudaEventRecord, cudaStreamWaitEvent, cudaDeviceSynchronize
//   graph (6): cudaStreamBeginCapture, cudaStreamEndCapture, cudaGraphInstantiate,
//              cudaGraphLaunch x3
//   launch (3): cudaLaunchKernelExC <<<(3,2,1),(16,2,1), 48>>>, cudaLaunchCooperativeKernel
//              <<<(4,1,1),(32,1,1), 0>>>, one <<<>>> launch (2,1,1),(8,1,1) inside the capture
#include <cstdlib>
#include <cuda_runtime.h>

__device__ float table[64];

__global__ void surf(float *x)
{
	if (x)
		x[0] = table[0];
}

int main()
{
	cudaStream_t s = (cudaStream_t)0x5150;
	cudaEvent_t ev = (cudaEvent_t)0xe7e7;
	void *d1, *d2, *m, *a, *h1, *h2, *h3;
	char *reg = (char *)calloc(1, 262144), *host = (char *)calloc(1, 4096);
	void *dev = (void *)0x7f0000200000ull;

	cudaMalloc(&d1, 4096);
	cudaMalloc(&d2, 8192);
	cudaMallocManaged(&m, 1024);
	cudaMallocAsync(&a, 2048, s);
	cudaMallocHost(&h1, 65536);
	cudaHostAlloc(&h2, 131072, cudaHostAllocDefault);
	cudaHostRegister(reg, 262144, cudaHostRegisterDefault);
	cudaMallocHost(&h3, 100);

	cudaMemset(dev, 0, 512);
	cudaMemsetAsync(dev, 1, 256, s);

	cudaMemcpy2D(dev, 64, host, 16, 16, 8, cudaMemcpyHostToDevice);
	cudaMemcpy2DAsync(host, 32, dev, 64, 32, 4, cudaMemcpyDeviceToHost, s);
	cudaMemcpy3DParms p = {};
	p.srcPtr = make_cudaPitchedPtr(dev, 8, 8, 4);
	p.dstPtr = make_cudaPitchedPtr((char *)dev + 4096, 8, 8, 4);
	p.extent = make_cudaExtent(8, 4, 2);
	p.kind = cudaMemcpyDeviceToDevice;
	cudaMemcpy3D(&p);
	cudaMemcpyPeer(dev, 1, (char *)dev + 8192, 0, 1000);
	cudaMemcpyToSymbol(table, host, 64);
	cudaMemcpyFromSymbol(host, table, 32);
	cudaMemcpyAsync(host, dev, 4, cudaMemcpyDeviceToHost, s);

	cudaDeviceSynchronize();
	cudaStreamSynchronize(s);
	cudaEventSynchronize(ev);
	cudaEventRecord(ev, s);
	cudaStreamWaitEvent(s, ev, 0);
	cudaDeviceSynchronize();

	cudaGraph_t g = nullptr;
	cudaGraphExec_t ge = nullptr;
	cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
	surf<<<2, 8, 0, s>>>(nullptr);
	cudaStreamEndCapture(s, &g);
	cudaGraphInstantiate(&ge, g, 0);
	for (int i = 0; i < 3; i++)
		cudaGraphLaunch(ge, s);

	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(3, 2, 1);
	cfg.blockDim = dim3(16, 2, 1);
	cfg.dynamicSmemBytes = 48;
	cfg.stream = s;
	float *arg = nullptr;
	void *args[] = {&arg};
	cudaLaunchKernelExC(&cfg, (const void *)surf, args);
	cudaLaunchCooperativeKernel((const void *)surf, dim3(4), dim3(32), args, 0, s);

	cudaFree(d1);
	cudaFree(d2);
	cudaFreeAsync(a, s);
	cudaFreeHost(h1);
	cudaFreeHost(h2);
	cudaHostUnregister(reg);
	free(reg);
	free(host);
	return 0;
}
