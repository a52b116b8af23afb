// Ground truth for the SM count the recorder takes from device queries (tests/e2e/sm_count.sh).
// It asks cudaDeviceGetAttribute(cudaDevAttrMaxThreadsPerBlock) first (another attribute: never
// an SM count), then the SM count through cudaGetDeviceProperties (multiProcessorCount) unless
// argv[1] is "attr", and through cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount) unless
// it is "props"; it prints what each returned (-1: not asked):
//   "<status> <max threads> <status> <sms> <status> <sms>"
// It also holds the recorder's hard-coded view of these ABIs to the toolkit's headers: it does
// not build if they differ.
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "../../bpf/gpurec.h"

static_assert(offsetof(struct cudaDeviceProp, multiProcessorCount) == GR_DEVICE_PROP_SMS_OFFSET,
	      "GR_DEVICE_PROP_SMS_OFFSET is not cudaDeviceProp's multiProcessorCount");
static_assert(cudaDevAttrMultiProcessorCount == GR_DEVICE_ATTR_SMS,
	      "GR_DEVICE_ATTR_SMS is not cudaDevAttrMultiProcessorCount");

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : "";
	struct cudaDeviceProp prop = {};
	int threads = -1, sms = -1;
	cudaError_t a, b = (cudaError_t)-1, c = (cudaError_t)-1;

	prop.multiProcessorCount = -1;
	a = cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerBlock, 0);
	if (strcmp(only, "attr"))
		b = cudaGetDeviceProperties(&prop, 0);
	if (strcmp(only, "props"))
		c = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
	printf("%d %d %d %d %d %d\n", (int)a, threads, (int)b, prop.multiProcessorCount, (int)c, sms);
	return 0;
}
