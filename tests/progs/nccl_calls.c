/* SPDX-License-Identifier: MIT */
/*
 * NCCL calls with exactly known arguments, on the real libnccl (tests/e2e/record_nccl.sh). With
 * no GPU every call fails, communicator creation first, so the collectives are made on a NULL
 * communicator, which libnccl rejects (ncclInvalidArgument) before touching anything else; a
 * zeroed block as a stand-in communicator crashes it. The probes see every argument all the
 * same; tests/progs/nccl_ranks.c checks communicator handles on a stand-in libnccl.
 *
 *   nccl_calls          prints the status of each call kind
 *   nccl_calls failing  makes only the calls that fail here (no group, no destroy): every
 *                       NCCL call that returns failed, as `record` then says
 */
#include <stdio.h>
#include <string.h>

#include <nccl.h>

#define STREAM_A ((cudaStream_t)0x5a000)
#define STREAM_B ((cudaStream_t)0x5b000)

int main(int argc, char **argv)
{
	int failing = argc > 1 && !strcmp(argv[1], "failing");
	ncclComm_t comm = NULL, made = NULL;
	ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
	ncclUniqueId a, b;
	static char buf[1 << 16];
	ncclResult_t r;

	for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++) {
		a.internal[i] = (char)i;
		b.internal[i] = (char)(255 - i);
	}
	r = ncclCommInitRank(&made, 4, a, 2);
	printf("ncclCommInitRank %d\n", r);
	r = ncclCommInitRankConfig(&made, 2, b, 1, &config);
	printf("ncclCommInitRankConfig %d\n", r);
	for (int i = 0; i < 5; i++)
		r = ncclAllReduce(buf, buf, 1024, ncclFloat32, ncclSum, comm, STREAM_A);
	printf("ncclAllReduce %d\n", r);
	for (int i = 0; i < 3; i++)
		r = ncclReduceScatter(buf, buf, 256, ncclFloat16, ncclMax, comm, STREAM_B);
	printf("ncclReduceScatter %d\n", r);
	for (int i = 0; i < 2; i++)
		r = ncclAllGather(buf, buf, 512, ncclInt64, comm, STREAM_A);
	printf("ncclAllGather %d\n", r);
	for (int i = 0; i < 4; i++)
		r = ncclBroadcast(buf, buf, 100, ncclUint8, 1, comm, STREAM_B);
	printf("ncclBroadcast %d\n", r);
	r = ncclReduce(buf, buf, 64, ncclFloat64, ncclProd, 3, comm, STREAM_A);
	printf("ncclReduce %d\n", r);
	if (!failing) {
		r = ncclGroupStart();
		printf("ncclGroupStart %d\n", r);
	}
	for (int i = 0; i < 2; i++) {
		ncclSend(buf, 10, ncclInt32, 1, comm, STREAM_B);
		r = ncclRecv(buf, 10, ncclInt32, 0, comm, STREAM_B);
	}
	printf("ncclRecv %d\n", r);
	if (failing)
		return 0;
	r = ncclGroupEnd();
	printf("ncclGroupEnd %d\n", r);
	r = ncclCommDestroy(NULL);
	printf("ncclCommDestroy %d\n", r);
	return 0;
}
