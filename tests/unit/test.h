/* SPDX-License-Identifier: MIT */
/*
 * A minimal TAP-style harness for unit tests: each CHECK prints nothing when it holds and one
 * "not ok" line with file:line and the expression when it fails. Each TEST prints one
 * "ok"/"not ok" line; tests/run.sh counts those lines across all test binaries.
 */
#ifndef GR_TEST_H
#define GR_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed_checks;
static int test_case_failed;
static int test_cases_failed;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);        \
			test_failed_checks++;                                                      \
			test_case_failed = 1;                                                      \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                         \
	do {                                                                                       \
		uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b);                                 \
		if (va_ != vb_) {                                                                  \
			printf("#   %s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 "\n",         \
			       __FILE__, __LINE__, #a, #b, va_, vb_);                              \
			test_failed_checks++;                                                      \
			test_case_failed = 1;                                                      \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *sa_ = (a), *sb_ = (b);                                                 \
		if (!sa_ || !sb_ || strcmp(sa_, sb_)) {                                            \
			printf("#   %s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__,         \
			       __LINE__, #a, #b, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");      \
			test_failed_checks++;                                                      \
			test_case_failed = 1;                                                      \
		}                                                                                  \
	} while (0)

/* Run one test function and print its TAP line. */
#define RUN_TEST(fn)                                                                               \
	do {                                                                                       \
		test_case_failed = 0;                                                              \
		fn();                                                                              \
		printf("%s - %s\n", test_case_failed ? "not ok" : "ok", #fn);                      \
		test_cases_failed += test_case_failed;                                             \
	} while (0)

#define TEST_EXIT() return test_cases_failed ? 1 : 0

#endif
