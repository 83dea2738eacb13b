// Queries (raycast.c, query.c): ray casts against every shape type against closed forms and against an
// independent search along the ray; closest points and distance; overlap.
#include "collide_support.h"

#include "collide/hull.h"
#include "collide/mesh.h"
#include "collide/query.h"

#define EXACT 1e-12 // rounding of a few operations on metre-sized numbers

static collide_ray_hit cast(collide_shape s, sn_transform xf, sn_vec3 o, sn_vec3 d, bool expect_hit)
{
	collide_ray_hit h;
	memset(&h, 0, sizeof(h));
	bool hit = collide_ray_cast(&s, xf, o, d, 1.0, &h);
	if (hit != expect_hit)
	{
		fail_msg("%s ray: hit %d, expected %d", collide_shape_type_name(s.type), hit, expect_hit);
	}
	return h;
}

static void assert_vec_near(sn_vec3 a, sn_vec3 b, double tol, const char* reason)
{
	assert_near(a.x, b.x, tol, reason);
	assert_near(a.y, b.y, tol, reason);
	assert_near(a.z, b.z, tol, reason);
}

static void test_ray_closed_forms(void** state)
{
	(void)state;
	sn_transform id = sn_transform_identity();
	// Sphere r 0.5: a ray along x at height 0.3 enters at x = -sqrt(0.25 - 0.09) = -0.4.
	collide_ray_hit h = cast(collide_make_sphere(0.5), pose_at(1, 0, 0), sn_v3(-1, 0.3, 0), sn_v3(4, 0, 0), true);
	assert_near(h.fraction, (1.0 - 0.4 + 1.0) / 4.0, EXACT, "closed form");
	assert_vec_near(h.normal, sn_v3(-0.8, 0.6, 0), EXACT, "radial");
	assert_int_equal(h.triangle, -1);
	cast(collide_make_sphere(0.5), id, sn_v3(-1, 0.6, 0), sn_v3(4, 0, 0), false); // passes above
	cast(collide_make_sphere(0.5), id, sn_v3(0.1, 0, 0), sn_v3(4, 0, 0), false);  // starts inside
	cast(collide_make_sphere(0.5), id, sn_v3(-1, 0, 0), sn_v3(0.4, 0, 0), false); // stops short
	// Box: through the -x face, and along an edge's direction; rotated 90 degrees about z the y face.
	collide_shape box = collide_make_box(sn_v3(0.5, 0.25, 0.1));
	h = cast(box, id, sn_v3(-2, 0.1, 0.05), sn_v3(4, 0, 0), true);
	assert_near(h.fraction, 1.5 / 4.0, EXACT, "closed form");
	assert_vec_near(h.normal, sn_v3(-1, 0, 0), 0.0, "face normal");
	h = cast(box, pose(sn_v3(0, 0, 0), sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI)), sn_v3(-2, 0.1, 0.05),
			 sn_v3(4, 0, 0), true);
	assert_near(h.fraction, 1.75 / 4.0, EXACT, "the 0.25 face after the turn");
	assert_vec_near(h.normal, sn_v3(-1, 0, 0), EXACT, "rotated face normal");
	cast(box, id, sn_v3(0, 0, 0), sn_v3(4, 0, 0), false); // inside
	// Capsule r 0.1, h 0.5 along z: the side at z 0.2, the top sphere from above.
	collide_shape cap = collide_make_capsule(0.1, 0.5);
	h = cast(cap, id, sn_v3(-1, 0, 0.2), sn_v3(2, 0, 0), true);
	assert_near(h.fraction, 0.9 / 2.0, EXACT, "side");
	h = cast(cap, id, sn_v3(0, 0.06, 2), sn_v3(0, 0, -2), true);
	assert_near(h.point.z, 0.5 + 0.08, EXACT, "top sphere: sqrt(0.01 - 0.0036) above the end");
	assert_vec_near(h.normal, sn_v3(0, 0.6, 0.8), EXACT, "sphere normal");
	// Cylinder r 0.2, h 0.3: cap from above, side.
	collide_shape cyl = collide_make_cylinder(0.2, 0.3);
	h = cast(cyl, id, sn_v3(0.1, 0.1, 1), sn_v3(0, 0, -2), true);
	assert_near(h.point.z, 0.3, EXACT, "cap");
	assert_vec_near(h.normal, sn_v3(0, 0, 1), 0.0, "cap normal");
	h = cast(cyl, id, sn_v3(1, 0.12, 0.1), sn_v3(-2, 0, 0), true);
	assert_near(h.point.x, 0.16, EXACT, "side: sqrt(0.04 - 0.0144)");
	cast(cyl, id, sn_v3(1, 0.12, 0.35), sn_v3(-2, 0, 0), false); // above the top
	// Plane z = 0 from above, from below (inside), parallel.
	collide_shape plane = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	h = cast(plane, id, sn_v3(3, 4, 2), sn_v3(1, 0, -4), true);
	assert_near(h.fraction, 0.5, EXACT, "closed form");
	assert_vec_near(h.point, sn_v3(3.5, 4, 0), EXACT, "closed form");
	cast(plane, id, sn_v3(3, 4, -2), sn_v3(0, 0, 4), false);
	cast(plane, id, sn_v3(3, 4, 2), sn_v3(1, 0, 0), false);
	// Zero translation never hits.
	cast(box, id, sn_v3(-2, 0, 0), sn_v3(0, 0, 0), false);
}

// A hull of a box's corners and a grid mesh give the same hits as the box and the plane on random rays.
static void test_ray_hull_and_mesh(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	sn_vec3 h = sn_v3(0.4, 0.3, 0.2);
	sn_vec3 corners[8];
	for (int i = 0; i < 8; ++i)
	{
		corners[i] = sn_v3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, corners, 8, &hull, NULL, 0));
	sn_vec3 v[25];
	int32_t idx[16 * 6];
	int ni = 0;
	for (int j = 0; j < 5; ++j)
	{
		for (int i = 0; i < 5; ++i)
		{
			v[j * 5 + i] = sn_v3(-2.0 + i, -2.0 + j, 0.0);
		}
	}
	for (int j = 0; j < 4; ++j)
	{
		for (int i = 0; i < 4; ++i)
		{
			int a = j * 5 + i;
			int32_t t[6] = { a, a + 1, a + 6, a, a + 6, a + 5 };
			for (int k = 0; k < 6; ++k)
			{
				idx[ni++] = t[k];
			}
		}
	}
	collide_mesh* mesh = NULL;
	assert_sn_ok(mesh_build(&mem, v, 25, idx, 32, &mesh, NULL, 0));
	collide_shape sb = collide_make_box(h), sh = collide_make_hull(hull), sm = collide_make_mesh(mesh),
				  sp = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	test_rng rng = { 8 };
	int hits = 0, mesh_hits = 0;
	for (int r = 0; r < 2000; ++r)
	{
		sn_transform xf = pose(rng_vec3(&rng, -0.5, 0.5), rng_quat(&rng));
		sn_vec3 o = sn_scale(2.0, rng_direction(&rng));
		sn_vec3 d = sn_scale(2.0, sn_sub(sn_add(xf.p, rng_vec3(&rng, -0.5, 0.5)), o));
		collide_ray_hit hb, hh;
		bool b1 = collide_ray_cast(&sb, xf, o, d, 1.0, &hb);
		bool b2 = collide_ray_cast(&sh, xf, o, d, 1.0, &hh);
		assert_int_equal(b1, b2);
		if (b1)
		{
			hits += 1;
			assert_near(hb.fraction, hh.fraction, EXACT, "hull of a box = box");
			assert_near(sn_dot(hb.normal, hh.normal), 1.0, EXACT, "same face");
		}
		// The mesh floor (a 4 x 4 square) against the plane, two-sided: within the square they agree
		// from above; from below only the mesh is hit (the plane's inside).
		sn_vec3 o2 = sn_v3(rng_range(&rng, -1.9, 1.9), rng_range(&rng, -1.9, 1.9), rng_range(&rng, 0.1, 2.0));
		sn_vec3 d2 = sn_v3(rng_range(&rng, -0.05, 0.05), rng_range(&rng, -0.05, 0.05), -3.0);
		collide_ray_hit hm, hp;
		bool m1 = collide_ray_cast(&sm, sn_transform_identity(), o2, d2, 1.0, &hm);
		bool p1 = collide_ray_cast(&sp, sn_transform_identity(), o2, d2, 1.0, &hp);
		if (fabs(o2.x + d2.x * hp.fraction) < 2.0 && fabs(o2.y + d2.y * hp.fraction) < 2.0)
		{
			assert_true(m1 && p1);
			mesh_hits += 1;
			assert_near(hm.fraction, hp.fraction, EXACT, "mesh floor = plane");
			assert_vec_near(hm.normal, sn_v3(0, 0, 1), EXACT, "facing the ray");
			assert_true(hm.triangle >= 0 && hm.triangle < 32);
		}
		sn_vec3 below = sn_v3(o2.x, o2.y, -o2.z);
		m1 = collide_ray_cast(&sm, sn_transform_identity(), below, sn_neg(d2), 1.0, &hm);
		assert_false(collide_ray_cast(&sp, sn_transform_identity(), below, sn_neg(d2), 1.0, &hp));
		if (m1)
		{
			assert_vec_near(hm.normal, sn_v3(0, 0, -1), EXACT, "two-sided: facing the ray from below");
		}
	}
	assert_true(hits > 200 && mesh_hits > 1000); // enough rays hit for the comparison to mean something
	hull_destroy(&mem, hull);
	mesh_destroy(&mem, mesh);
}

// Every convex shape against a search along the ray that uses only the overlap query (GJK) with a probe
// sphere of 1e-12 m: the first sample inside, then bisection to 1e-15. The two entries, measured along the
// surface normal (a grazing ray stretches any error along itself by 1/cos), must agree within the probe's
// radius plus GJK's touch tolerance (1e-10 of the shape's size, under 1 m here): 2e-10 m. If the search
// missed a grazing ray between samples, the cast's point must be on the surface.
static void test_ray_against_search(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	test_rng rng = { 404 };
	sn_vec3 pts[50];
	for (int i = 0; i < 50; ++i)
	{
		pts[i] = sn_add(sn_v3(0.05, 0, -0.1), sn_scale(0.5, rng_direction(&rng)));
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, pts, 50, &hull, NULL, 0));
	collide_shape shapes[5] = { collide_make_sphere(0.4), collide_make_capsule(0.15, 0.4),
								collide_make_box(sn_v3(0.3, 0.4, 0.2)), collide_make_cylinder(0.3, 0.35),
								collide_make_hull(hull) };
	collide_shape probe = collide_make_sphere(1e-12);
	double worst = 0.0;
	for (int s = 0; s < 5; ++s)
	{
		for (int r = 0; r < 300; ++r)
		{
			sn_transform xf = pose(rng_vec3(&rng, -0.2, 0.2), rng_quat(&rng));
			sn_vec3 o = sn_scale(2.0, rng_direction(&rng));
			sn_vec3 d = sn_sub(sn_add(rng_vec3(&rng, -0.5, 0.5), xf.p), o);
			d = sn_scale(2.0, d);
			collide_ray_hit hit;
			bool found = collide_ray_cast(&shapes[s], xf, o, d, 1.0, &hit);
			int first = -1;
			const int samples = 2000;
			for (int k = 0; k <= samples && first < 0; ++k)
			{
				if (collide_overlap(&probe, pose(sn_add(o, sn_scale((double)k / samples, d)), sn_quat_identity()),
									&shapes[s], xf))
				{
					first = k;
				}
			}
			if (first < 0)
			{
				if (found)
				{
					collide_distance_output dist;
					assert_true(collide_distance(&probe, pose(hit.point, sn_quat_identity()), &shapes[s], xf, &dist));
					assert_near(dist.distance, 0.0, 2e-10, "a grazing hit lies on the surface");
				}
				continue;
			}
			assert_true(found);
			assert_true(first > 0); // the rays start outside
			double lo = (double)(first - 1) / samples, hi = (double)first / samples;
			for (int it = 0; it < 60; ++it)
			{
				double mid = 0.5 * (lo + hi);
				if (collide_overlap(&probe, pose(sn_add(o, sn_scale(mid, d)), sn_quat_identity()), &shapes[s], xf))
				{
					hi = mid;
				}
				else
				{
					lo = mid;
				}
			}
			double err = fabs(hi - hit.fraction) * fabs(sn_dot(hit.normal, d));
			worst = fmax(worst, err);
			assert_below(err, 2e-10, "ray entry against the search along the ray, along the normal");
		}
	}
	report_measure("worst ray entry against the GJK search (m)", worst);
	hull_destroy(&mem, hull);
}

static void test_distance_and_overlap(void** state)
{
	(void)state;
	sn_transform id = sn_transform_identity();
	collide_distance_output d;
	collide_shape a = collide_make_sphere(0.3), b = collide_make_box(sn_v3(0.5, 0.5, 0.5));
	// Sphere 0.2 from the box's +x face.
	assert_true(collide_distance(&a, pose_at(1.0, 0.1, 0.2), &b, id, &d));
	assert_near(d.distance, 0.2, EXACT, "closed form");
	assert_vec_near(d.normal, sn_v3(-1, 0, 0), EXACT, "sphere to box");
	assert_vec_near(d.point_a, sn_v3(0.7, 0.1, 0.2), EXACT, "on the sphere");
	assert_vec_near(d.point_b, sn_v3(0.5, 0.1, 0.2), EXACT, "on the box");
	assert_true(collide_overlap(&a, pose_at(0.75, 0, 0), &b, id));
	assert_false(collide_overlap(&a, pose_at(1.0, 0, 0), &b, id));
	// Overlapping by 0.05: negative distance by EPA.
	assert_true(collide_distance(&a, pose_at(0.75, 0, 0), &b, id, &d));
	assert_near(d.distance, -0.05, 1e-10, "EPA on a rounded solid: 1e-10 of the size");
	// Box corner to corner along the diagonal: sqrt(3) 0.1 apart.
	assert_true(collide_distance(&b, id, &b, pose_at(1.1, 1.1, 1.1), &d));
	assert_near(d.distance, sqrt(3.0) * 0.1, EXACT, "corner to corner");
	// Plane and a capsule lying 0.05 above it; the plane second flips the normal.
	collide_shape plane = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	collide_shape cap = collide_make_capsule(0.1, 0.3);
	sn_transform lying = pose(sn_v3(0, 0, 0.15), sn_quat_from_axis_angle(sn_v3(1, 0, 0), 0.5 * SN_PI));
	assert_true(collide_distance(&plane, id, &cap, lying, &d));
	assert_near(d.distance, 0.05, EXACT, "closed form");
	assert_true(collide_distance(&cap, lying, &plane, id, &d));
	assert_near(d.distance, 0.05, EXACT, "closed form");
	assert_vec_near(d.normal, sn_v3(0, 0, -1), 0.0, "capsule to plane");
	assert_true(collide_overlap(&plane, id, &cap, pose_at(0, 0, 0.35)));
	assert_false(collide_overlap(&plane, id, &cap, pose_at(0, 0, 0.45)));
	// Mesh: a one-triangle mesh and spheres near it.
	sn_memory mem = test_memory();
	sn_vec3 v[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
	int32_t idx[3] = { 0, 1, 2 };
	collide_mesh* mesh = NULL;
	assert_sn_ok(mesh_build(&mem, v, 3, idx, 1, &mesh, NULL, 0));
	collide_shape m = collide_make_mesh(mesh);
	assert_true(collide_overlap(&m, id, &a, pose_at(0.2, 0.2, 0.29)));
	assert_false(collide_overlap(&m, id, &a, pose_at(0.2, 0.2, 0.31)));
	assert_false(collide_overlap(&m, id, &a, pose_at(1.0, 1.0, 0.0))); // 0.71 from the hypotenuse
	assert_false(collide_distance(&m, id, &a, id, &d));
	assert_false(collide_overlap(&m, id, &plane, id));
	mesh_destroy(&mem, mesh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ray_closed_forms),
		cmocka_unit_test(test_ray_hull_and_mesh),
		cmocka_unit_test(test_ray_against_search),
		cmocka_unit_test(test_distance_and_overlap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
