// Helpers shared by the collision tests: a seeded generator (xorshift64*, so every run sees the same
// poses), random rotations and poses, an sn_memory with counters, and small geometry checks.
#ifndef SINEW_TEST_COLLIDE_SUPPORT_H
#define SINEW_TEST_COLLIDE_SUPPORT_H

#include "support.h"

#include "alloc.h"
#include "collide/geometry.h"

#include <stdlib.h>
#include <string.h>

#define report_measure(name, value) print_message("MEASURE %s = %.6g\n", name, (double)(value))

typedef struct test_rng
{
	uint64_t state;
} test_rng;

static inline uint64_t rng_next(test_rng* r)
{
	r->state ^= r->state >> 12;
	r->state ^= r->state << 25;
	r->state ^= r->state >> 27;
	return r->state * 2685821657736338717ull;
}

// Uniform in [0, 1).
static inline double rng_uniform(test_rng* r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double rng_range(test_rng* r, double lo, double hi)
{
	return lo + (hi - lo) * rng_uniform(r);
}

static inline sn_vec3 rng_vec3(test_rng* r, double lo, double hi)
{
	double x = rng_range(r, lo, hi);
	double y = rng_range(r, lo, hi);
	double z = rng_range(r, lo, hi);
	return sn_v3(x, y, z);
}

// A uniformly distributed rotation (Shoemake's method).
static inline sn_quat rng_quat(test_rng* r)
{
	double u1 = rng_uniform(r), u2 = rng_uniform(r), u3 = rng_uniform(r);
	double a = sqrt(1.0 - u1), b = sqrt(u1);
	sn_quat q = { a * sin(2.0 * SN_PI * u2), a * cos(2.0 * SN_PI * u2), b * sin(2.0 * SN_PI * u3),
				  b * cos(2.0 * SN_PI * u3) };
	return q;
}

// A uniformly distributed unit vector.
static inline sn_vec3 rng_direction(test_rng* r)
{
	double z = rng_range(r, -1.0, 1.0);
	double phi = rng_range(r, 0.0, 2.0 * SN_PI);
	double s = sqrt(fmax(0.0, 1.0 - z * z));
	return sn_v3(s * cos(phi), s * sin(phi), z);
}

static inline sn_transform pose(sn_vec3 p, sn_quat q)
{
	sn_transform t = { p, q };
	return t;
}

static inline sn_transform pose_at(double x, double y, double z)
{
	sn_transform t = { { x, y, z }, { 0, 0, 0, 1 } };
	return t;
}

// A memory with malloc and counters (the world's allocator, without a world).
static inline sn_memory test_memory(void)
{
	sn_memory m;
	sn_allocator none = { NULL, NULL, NULL };
	memory_init(&m, none);
	return m;
}

static inline double angle_between(sn_vec3 a, sn_vec3 b)
{
	return atan2(sn_length(sn_cross(a, b)), sn_dot(a, b));
}

#endif
