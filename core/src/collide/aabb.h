// Axis-aligned bounding boxes: the currency of the broadphase (dynamic_tree.c), the mesh BVH (mesh.c)
// and shape bounds (bounds.c). Inline, branch-light; lower <= upper on every axis for a valid box.
#ifndef SINEW_COLLIDE_AABB_H
#define SINEW_COLLIDE_AABB_H

#include "sinew/math.h"

#include <stdbool.h>

typedef struct collide_aabb
{
	sn_vec3 lower; // m
	sn_vec3 upper; // m
} collide_aabb;

static inline collide_aabb aabb_make(sn_vec3 lower, sn_vec3 upper)
{
	collide_aabb a = { lower, upper };
	return a;
}

// The box of one point.
static inline collide_aabb aabb_point(sn_vec3 p)
{
	collide_aabb a = { p, p };
	return a;
}

static inline sn_vec3 aabb_vmin(sn_vec3 a, sn_vec3 b)
{
	return sn_v3(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z);
}

static inline sn_vec3 aabb_vmax(sn_vec3 a, sn_vec3 b)
{
	return sn_v3(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z);
}

static inline collide_aabb aabb_union(collide_aabb a, collide_aabb b)
{
	collide_aabb c = { aabb_vmin(a.lower, b.lower), aabb_vmax(a.upper, b.upper) };
	return c;
}

static inline collide_aabb aabb_add_point(collide_aabb a, sn_vec3 p)
{
	collide_aabb c = { aabb_vmin(a.lower, p), aabb_vmax(a.upper, p) };
	return c;
}

// Grown by margin (m, >= 0) on every side.
static inline collide_aabb aabb_extend(collide_aabb a, double margin)
{
	sn_vec3 m = sn_v3(margin, margin, margin);
	collide_aabb c = { sn_sub(a.lower, m), sn_add(a.upper, m) };
	return c;
}

// Closed intervals: boxes that touch overlap.
static inline bool aabb_overlaps(collide_aabb a, collide_aabb b)
{
	return a.lower.x <= b.upper.x && b.lower.x <= a.upper.x && a.lower.y <= b.upper.y && b.lower.y <= a.upper.y &&
		a.lower.z <= b.upper.z && b.lower.z <= a.upper.z;
}

// Whether outer holds inner whole.
static inline bool aabb_contains(collide_aabb outer, collide_aabb inner)
{
	return outer.lower.x <= inner.lower.x && outer.lower.y <= inner.lower.y && outer.lower.z <= inner.lower.z &&
		inner.upper.x <= outer.upper.x && inner.upper.y <= outer.upper.y && inner.upper.z <= outer.upper.z;
}

// Surface area, m^2: the cost measure of the surface-area heuristic (the chance that a random ray or box
// meets a convex set is proportional to its surface area: MacDonald and Booth 1990).
static inline double aabb_surface_area(collide_aabb a)
{
	double dx = a.upper.x - a.lower.x;
	double dy = a.upper.y - a.lower.y;
	double dz = a.upper.z - a.lower.z;
	return 2.0 * (dx * dy + dy * dz + dz * dx);
}

static inline sn_vec3 aabb_center(collide_aabb a)
{
	return sn_scale(0.5, sn_add(a.lower, a.upper));
}

static inline sn_vec3 aabb_extents(collide_aabb a)
{
	return sn_scale(0.5, sn_sub(a.upper, a.lower));
}

static inline bool aabb_is_valid(collide_aabb a)
{
	return sn_vec3_is_finite(a.lower) && sn_vec3_is_finite(a.upper) && a.lower.x <= a.upper.x &&
		a.lower.y <= a.upper.y && a.lower.z <= a.upper.z;
}

// Slab test (Kay and Kajiya 1986; Ericson 5.3.3): whether the segment origin + t * translation,
// t in [0, max_fraction], meets the box. inv is 1 / translation per axis (infinite where it is 0, which
// the comparisons handle: a ray parallel to a slab is inside it or misses).
static inline bool aabb_ray_overlaps(collide_aabb a, sn_vec3 origin, sn_vec3 inv, double max_fraction)
{
	double t0 = 0.0;
	double t1 = max_fraction;
	const double o[3] = { origin.x, origin.y, origin.z };
	const double r[3] = { inv.x, inv.y, inv.z };
	const double lo[3] = { a.lower.x, a.lower.y, a.lower.z };
	const double hi[3] = { a.upper.x, a.upper.y, a.upper.z };
	for (int i = 0; i < 3; ++i)
	{
		if (isinf(r[i]))
		{
			if (o[i] < lo[i] || o[i] > hi[i])
			{
				return false;
			}
			continue;
		}
		double ta = (lo[i] - o[i]) * r[i];
		double tb = (hi[i] - o[i]) * r[i];
		if (ta > tb)
		{
			double t = ta;
			ta = tb;
			tb = t;
		}
		t0 = ta > t0 ? ta : t0;
		t1 = tb < t1 ? tb : t1;
		if (t0 > t1)
		{
			return false;
		}
	}
	return true;
}

// 1 / translation per axis, infinite where a component is zero.
static inline sn_vec3 aabb_ray_inverse(sn_vec3 translation)
{
	return sn_v3(translation.x != 0.0 ? 1.0 / translation.x : INFINITY,
				 translation.y != 0.0 ? 1.0 / translation.y : INFINITY,
				 translation.z != 0.0 ? 1.0 / translation.z : INFINITY);
}

#endif
