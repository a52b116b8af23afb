/* SPDX-License-Identifier: MIT */
/* analyze/util/units.c: each unit reads the same for every command, at each scale's boundary. */
#include "analyze/util/units.h"
#include "test.h"

#define NS(v, want)    CHECK_STR(gr_units_ns(buf, sizeof(buf), (v)), (want))
#define BYTES(v, want) CHECK_STR(gr_units_bytes(buf, sizeof(buf), (v)), (want))

static void test_ns(void)
{
	char buf[GR_UNITS_LEN];

	NS(0, "0 ns");
	NS(500, "0.50 us");
	NS(9999, "10.00 us");
	NS(10000, "10.0 us");
	NS(999900, "999.9 us");
	NS(1000000, "1.00 ms");
	NS(2.5e6, "2.50 ms");
	NS(9.99e9, "9990.00 ms");
	NS(10e9, "10.00 s");
	NS(-3237000, "-3.24 ms");
	NS(-5, "-0.01 us");
}

static void test_bytes_rate_pct(void)
{
	char buf[GR_UNITS_LEN];

	BYTES(0, "0 B");
	BYTES(1023, "1023 B");
	BYTES(1024, "1.0 KiB");
	BYTES(16777216, "16.0 MiB");
	BYTES(1610612736.0, "1.50 GiB");
	BYTES(-2048, "-2.0 KiB");
	CHECK_STR(gr_units_rate(buf, sizeof(buf), 7.9e9), "7.90 GB/s");
	CHECK_STR(gr_units_rate(buf, sizeof(buf), 86.4e6), "86.4 MB/s");
	CHECK_STR(gr_units_rate(buf, sizeof(buf), 12e3), "12.0 kB/s");
	CHECK_STR(gr_units_pct(buf, sizeof(buf), 0.003), "0.3%");
	CHECK_STR(gr_units_pct(buf, sizeof(buf), 0.58), "58%");
	CHECK_STR(gr_units_s(buf, sizeof(buf), 12345678901.0), "12.346 s");
}

int main(void)
{
	RUN_TEST(test_ns);
	RUN_TEST(test_bytes_rate_pct);
	TEST_EXIT();
}
