// Shape validation (geometry.c) and bounding boxes (bounds.c).
#include "collide_support.h"

#include "collide/bounds.h"
#include "collide/hull.h"
#include "collide/support.h"

static void expect(collide_shape s, sn_error code, const char* fragment)
{
	char detail[256] = "";
	assert_sn_error(collide_shape_check(&s, detail, sizeof(detail)), code);
	if (fragment != NULL && strstr(detail, fragment) == NULL)
	{
		fail_msg("detail '%s' does not mention '%s'", detail, fragment);
	}
}

static void test_validation(void** state)
{
	(void)state;
	expect(collide_make_sphere(0.1), SN_ERR_OK, NULL);
	expect(collide_make_sphere(NAN), SN_ERR_NOT_FINITE, "radius");
	expect(collide_make_sphere(INFINITY), SN_ERR_NOT_FINITE, "radius");
	expect(collide_make_sphere(-0.1), SN_ERR_NEGATIVE_VALUE, "radius");
	expect(collide_make_sphere(0.0), SN_ERR_INVALID_ARGUMENT, "radius");
	expect(collide_make_sphere(1e-12), SN_ERR_INVALID_ARGUMENT, "at least");
	expect(collide_make_sphere(2e6), SN_ERR_INVALID_ARGUMENT, "at most");
	expect(collide_make_capsule(0.1, 0.0), SN_ERR_OK, NULL); // a sphere
	expect(collide_make_capsule(0.1, -1.0), SN_ERR_NEGATIVE_VALUE, "half_length");
	expect(collide_make_capsule(0.0, 1.0), SN_ERR_INVALID_ARGUMENT, "radius");
	expect(collide_make_capsule(0.1, NAN), SN_ERR_NOT_FINITE, "half_length");
	expect(collide_make_box(sn_v3(1, 1, 1)), SN_ERR_OK, NULL);
	expect(collide_make_box(sn_v3(1, 0, 1)), SN_ERR_INVALID_ARGUMENT, "half_extents.y");
	expect(collide_make_box(sn_v3(1, 1, -2)), SN_ERR_NEGATIVE_VALUE, "half_extents.z");
	expect(collide_make_box(sn_v3(NAN, 1, 1)), SN_ERR_NOT_FINITE, "half_extents.x");
	expect(collide_make_cylinder(0.1, 0.2), SN_ERR_OK, NULL);
	expect(collide_make_cylinder(0.1, 0.0), SN_ERR_INVALID_ARGUMENT, "half_height");
	expect(collide_make_cylinder(-0.1, 0.2), SN_ERR_NEGATIVE_VALUE, "radius");
	expect(collide_make_plane(sn_v3(0, 0, 2), 1.0), SN_ERR_OK, NULL); // normalised
	expect(collide_make_plane(sn_v3(0, 0, 0), 1.0), SN_ERR_ZERO_AXIS, "zero");
	expect(collide_make_plane(sn_v3(0, 0, 1), NAN), SN_ERR_NOT_FINITE, "offset");
	expect(collide_make_plane(sn_v3(NAN, 0, 1), 0.0), SN_ERR_NOT_FINITE, NULL);
	expect(collide_make_plane(sn_v3(0, 0, 1), 1e7), SN_ERR_INVALID_ARGUMENT, "offset");
	collide_shape hand = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	hand.plane.normal = sn_v3(0, 0, 1.5);
	expect(hand, SN_ERR_INVALID_ARGUMENT, "unit");
	expect(collide_make_hull(NULL), SN_ERR_INVALID_ARGUMENT, "hull");
	expect(collide_make_mesh(NULL), SN_ERR_INVALID_ARGUMENT, "mesh");
	collide_shape bad = collide_make_sphere(1.0);
	bad.type = (collide_shape_type)42;
	expect(bad, SN_ERR_INVALID_ARGUMENT, "type");
	assert_sn_error(collide_shape_check(NULL, NULL, 0), SN_ERR_INVALID_ARGUMENT);
}

// Bounds against support functions: every face of the box touches the shape (tight) and the shape's
// support along each world axis is inside (conservative). Tight to rounding (1e-12 of the size) for
// the convex primitives and hulls.
static void test_bounds_tight(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	test_rng rng = { 99 };
	sn_vec3 pts[30];
	for (int i = 0; i < 30; ++i)
	{
		pts[i] = sn_add(sn_v3(0.1, -0.2, 0.05), sn_scale(0.4, rng_direction(&rng)));
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, pts, 30, &hull, NULL, 0));
	collide_shape shapes[5] = { collide_make_sphere(0.3), collide_make_capsule(0.1, 0.4),
								collide_make_box(sn_v3(0.3, 0.2, 0.1)), collide_make_cylinder(0.25, 0.4),
								collide_make_hull(hull) };
	for (int trial = 0; trial < 200; ++trial)
	{
		for (int s = 0; s < 5; ++s)
		{
			sn_transform xf = pose(rng_vec3(&rng, -5, 5), rng_quat(&rng));
			double margin = rng_range(&rng, 0.0, 0.1);
			collide_aabb box = collide_shape_aabb(&shapes[s], xf, margin);
			collide_convex c = convex_from_shape(&shapes[s]);
			const double lo[3] = { box.lower.x, box.lower.y, box.lower.z };
			const double hi[3] = { box.upper.x, box.upper.y, box.upper.z };
			for (int axis = 0; axis < 3; ++axis)
			{
				for (int side = -1; side <= 1; side += 2)
				{
					sn_vec3 d = sn_v3(axis == 0 ? side : 0, axis == 1 ? side : 0, axis == 2 ? side : 0);
					sn_vec3 p = sn_transform_point(xf, convex_support(&c, sn_inv_rotate(xf.q, d)));
					double reach = sn_dot(d, p) + c.radius;
					double bound = side > 0 ? hi[axis] : -lo[axis];
					assert_near(bound - margin, reach, 1e-12 * 10.0, "the box's face is the support plane");
				}
			}
		}
	}
	hull_destroy(&mem, hull);
}

// A plane's box: closed off along an axis its normal lies on, huge elsewhere.
static void test_bounds_plane(void** state)
{
	(void)state;
	collide_shape floor = collide_make_plane(sn_v3(0, 0, 1), 0.5);
	collide_aabb box = collide_shape_aabb(&floor, pose_at(0, 0, 1), 0.1);
	assert_near(box.upper.z, 1.6, 1e-15, "offset 0.5 + pose 1 + margin 0.1");
	assert_true(box.lower.z <= -COLLIDE_PLANE_EXTENT && box.upper.x >= COLLIDE_PLANE_EXTENT);
	collide_shape tilted = collide_make_plane(sn_v3(1, 0, 1), 0.0);
	box = collide_shape_aabb(&tilted, sn_transform_identity(), 0.0);
	assert_true(box.upper.z >= COLLIDE_PLANE_EXTENT && box.lower.x <= -COLLIDE_PLANE_EXTENT);
	assert_true(isfinite(aabb_surface_area(box)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_bounds_tight),
		cmocka_unit_test(test_bounds_plane),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
