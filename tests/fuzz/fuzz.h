/* SPDX-License-Identifier: MIT */
/*
 * What every fuzz target shares: an invariant that does not hold aborts with its file, line and
 * text, so libFuzzer keeps the input and the corpus replay names it.
 */
#ifndef GR_TESTS_FUZZ_H
#define GR_TESTS_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_ASSERT(c)                                                                             \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c);  \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
