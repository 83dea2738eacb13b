// Robustness: hull builds on hostile point clouds (near-coplanar, near-collinear, clustered, duplicated,
// huge and tiny) either succeed with a valid hull or fail with a typed error, and never leak; every shape
// pair at random poses, sizes and aspect ratios gives well-formed manifolds (finite, unit normals, at most
// four points, each below the margin) and well-formed query answers.
#include "collide_support.h"

#include "collide/hull.h"
#include "collide/mesh.h"
#include "collide/narrowphase.h"
#include "collide/query.h"

static void test_hostile_hulls(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	test_rng rng = { 0xBAD5EEDull };
	static sn_vec3 p[600];
	int built = 0, refused = 0;
	for (int trial = 0; trial < 1500; ++trial)
	{
		int n = 4 + (int)(rng_uniform(&rng) * 596.0);
		int kind = trial % 6;
		double scale = pow(10.0, rng_range(&rng, -5.0, 5.0));
		sn_vec3 u = rng_direction(&rng), v = sn_normalize(sn_cross(u, rng_direction(&rng)));
		for (int i = 0; i < n; ++i)
		{
			double a = rng_range(&rng, -1, 1), b = rng_range(&rng, -1, 1), c = rng_range(&rng, -1, 1);
			switch (kind)
			{
				case 0: // a plane with noise near the tolerance
					p[i] = sn_add(sn_add(sn_scale(a, u), sn_scale(b, v)), sn_scale(c * 1e-6, sn_cross(u, v)));
					break;
				case 1: // a line with noise
					p[i] = sn_add(sn_scale(a, u), sn_scale(1e-7, rng_vec3(&rng, -1, 1)));
					break;
				case 2: // clusters of near-duplicates at a few corners
					p[i] = sn_add(sn_v3((i % 4) & 1, (i % 4) >> 1, (i % 8) >> 2), sn_scale(1e-9, sn_v3(a, b, c)));
					break;
				case 3: // exact duplicates of a handful of points
					p[i] = i < 6 ? rng_vec3(&rng, -1, 1) : p[i % 6];
					break;
				case 4: // a grid (many coplanar, collinear and cospherical subsets)
					p[i] = sn_v3((double)(i % 5), (double)((i / 5) % 5), (double)(i / 25));
					break;
				default: // a thin slab: a box 1e-4 thick
					p[i] = sn_v3(a, b, 1e-4 * c);
					break;
			}
			p[i] = sn_scale(scale, p[i]);
		}
		collide_hull* hull = NULL;
		char detail[256] = "";
		sn_error err = hull_build(&mem, p, n, &hull, detail, sizeof(detail));
		if (err == SN_ERR_OK)
		{
			built += 1;
			if (!hull_validate(hull, detail, sizeof(detail)))
			{
				fail_msg("trial %d (kind %d, %d points, scale %g, tolerance %g, %d faces): %s", trial, kind, n, scale,
						 hull->tolerance, hull->face_count, detail);
			}
			hull_destroy(&mem, hull);
		}
		else
		{
			refused += 1;
			assert_int_equal(err, SN_ERR_INVALID_ARGUMENT);
			assert_true(strlen(detail) > 0);
		}
	}
	report_measure("hostile clouds built", built);
	report_measure("hostile clouds refused as degenerate", refused);
	assert_true(built > 100 && refused > 100); // both outcomes exercised
	assert_int_equal(mem.stats.bytes_in_use, 0);
}

static bool finite_manifold(const collide_manifold* m, double margin)
{
	if (m->point_count < 1 || m->point_count > COLLIDE_MANIFOLD_POINTS || !sn_vec3_is_finite(m->normal) ||
		fabs(sn_length(m->normal) - 1.0) > 1e-9)
	{
		return false;
	}
	for (int i = 0; i < m->point_count; ++i)
	{
		if (!sn_vec3_is_finite(m->points[i].point) || !isfinite(m->points[i].separation) ||
			!(m->points[i].separation < margin))
		{
			return false;
		}
	}
	return true;
}

static void test_every_pair(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	test_rng rng = { 271828 };
	sn_vec3 pts[24];
	for (int i = 0; i < 24; ++i)
	{
		sn_vec3 d = rng_direction(&rng);
		pts[i] = sn_v3(0.5 * d.x, 0.05 * d.y, 0.2 * d.z); // a flat, elongated hull
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, pts, 24, &hull, NULL, 0));
	sn_vec3 v[4] = { { -1, -1, 0 }, { 1, -1, 0.1 }, { 1, 1, 0 }, { -1, 1, -0.1 } };
	int32_t idx[6] = { 0, 1, 2, 0, 2, 3 };
	collide_mesh* mesh = NULL;
	assert_sn_ok(mesh_build(&mem, v, 4, idx, 2, &mesh, NULL, 0));
	long manifolds = 0;
	for (int trial = 0; trial < 20000; ++trial)
	{
		// Sizes from 1 mm to 1 m and aspect ratios up to 1000.
		double k = pow(10.0, rng_range(&rng, -3.0, 0.0));
		collide_shape shapes[7] = {
			collide_make_sphere(k * rng_range(&rng, 0.01, 0.5)),
			collide_make_capsule(k * rng_range(&rng, 0.001, 0.3), k * rng_range(&rng, 0.0, 1.0)),
			collide_make_box(sn_v3(k * rng_range(&rng, 0.001, 1.0), k * rng_range(&rng, 0.001, 1.0),
								   k * rng_range(&rng, 0.001, 1.0))),
			collide_make_cylinder(k * rng_range(&rng, 0.001, 0.5), k * rng_range(&rng, 0.001, 1.0)),
			collide_make_hull(hull),
			collide_make_mesh(mesh),
			collide_make_plane(rng_direction(&rng), rng_range(&rng, -0.1, 0.1)),
		};
		int ia = (int)(rng_uniform(&rng) * 7), ib = (int)(rng_uniform(&rng) * 7);
		sn_transform xa = pose(rng_vec3(&rng, -0.3, 0.3), rng_quat(&rng));
		sn_transform xb = pose(sn_add(xa.p, sn_scale(rng_range(&rng, 0.0, 0.6), rng_direction(&rng))), rng_quat(&rng));
		// Sometimes exactly aligned (the degenerate ties of resting contacts).
		if (trial % 5 == 0)
		{
			xb.q = xa.q;
		}
		double margin = rng_range(&rng, 0.0, 0.05);
		collide_manifold out[COLLIDE_MAX_MANIFOLDS];
		int n = collide_shapes(&shapes[ia], xa, &shapes[ib], xb, margin, out);
		assert_true(n >= 0 && n <= COLLIDE_MAX_MANIFOLDS);
		for (int i = 0; i < n; ++i)
		{
			if (!finite_manifold(&out[i], margin))
			{
				fail_msg("trial %d: %s-%s manifold %d malformed", trial, collide_shape_type_name(shapes[ia].type),
						 collide_shape_type_name(shapes[ib].type), i);
			}
		}
		manifolds += n;
		collide_distance_output d;
		if (collide_distance(&shapes[ia], xa, &shapes[ib], xb, &d))
		{
			assert_true(isfinite(d.distance) && sn_vec3_is_finite(d.point_a) && sn_vec3_is_finite(d.point_b));
			assert_near(sn_length(d.normal), 1.0, 1e-9, "a unit normal");
		}
		(void)collide_overlap(&shapes[ia], xa, &shapes[ib], xb);
		collide_ray_hit hit;
		if (collide_ray_cast(&shapes[ia], xa, xb.p, sn_sub(xa.p, xb.p), 1.0, &hit))
		{
			assert_true(hit.fraction >= 0.0 && hit.fraction <= 1.0 && sn_vec3_is_finite(hit.point));
		}
	}
	report_measure("manifolds checked", manifolds);
	assert_true(manifolds > 5000);
	hull_destroy(&mem, hull);
	mesh_destroy(&mem, mesh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_hulls),
		cmocka_unit_test(test_every_pair),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
