// Helpers shared by the cmocka tests: tolerance checks that print both numbers and the reason for the
// tolerance when they fail.
#ifndef SINEW_TEST_SUPPORT_H
#define SINEW_TEST_SUPPORT_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

// |actual - expected| <= tolerance, else fail with the values and the reason for the tolerance.
#define assert_near(actual, expected, tolerance, reason)                                                               \
	do                                                                                                                 \
	{                                                                                                                  \
		double sn_a_ = (actual), sn_e_ = (expected), sn_t_ = (tolerance);                                              \
		if (!(fabs(sn_a_ - sn_e_) <= sn_t_))                                                                           \
		{                                                                                                              \
			fail_msg("%s = %.17g, expected %.17g within %.3g (%s)", #actual, sn_a_, sn_e_, sn_t_, reason);             \
		}                                                                                                              \
	} while (0)

// actual <= bound, else fail with the values and the reason for the bound.
#define assert_below(actual, bound, reason)                                                                            \
	do                                                                                                                 \
	{                                                                                                                  \
		double sn_a_ = (actual), sn_b_ = (bound);                                                                      \
		if (!(sn_a_ <= sn_b_))                                                                                         \
		{                                                                                                              \
			fail_msg("%s = %.17g, expected <= %.17g (%s)", #actual, sn_a_, sn_b_, reason);                             \
		}                                                                                                              \
	} while (0)

// A core call returned this error code; prints both names on mismatch.
#define assert_sn_error(call, expected)                                                                                \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_error sn_got_ = (call);                                                                                     \
		if (sn_got_ != (expected))                                                                                     \
		{                                                                                                              \
			fail_msg("%s returned %s, expected %s", #call, sn_error_name(sn_got_), sn_error_name(expected));           \
		}                                                                                                              \
	} while (0)

#define assert_sn_ok(call) assert_sn_error(call, SN_ERR_OK)

#endif
