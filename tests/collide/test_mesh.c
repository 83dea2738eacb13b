// Triangle meshes (mesh.c, narrow_mesh.c): validation, the BVH against brute force, active edges, and
// the mesh narrowphase: a box sliding over a two-triangle floor keeps the floor's normal across the
// shared edge, a box in a corner touches with two manifolds.
#include "collide_support.h"

#include "collide/mesh.h"
#include "collide/narrowphase.h"

static collide_mesh* build(sn_memory* mem, const sn_vec3* v, int nv, const int32_t* idx, int nt)
{
	collide_mesh* mesh = NULL;
	char detail[256] = "";
	sn_error err = mesh_build(mem, v, nv, idx, nt, &mesh, detail, sizeof(detail));
	if (err != SN_ERR_OK)
	{
		fail_msg("mesh_build: %s (%s)", sn_error_name(err), detail);
	}
	return mesh;
}

// A square floor [-s, s]^2 at z = 0 of n x n cells, two triangles each, normals +z.
static collide_mesh* floor_grid(sn_memory* mem, double s, int n)
{
	sn_vec3 v[(16 + 1) * (16 + 1)];
	int32_t idx[16 * 16 * 6];
	int nv = 0, ni = 0;
	for (int j = 0; j <= n; ++j)
	{
		for (int i = 0; i <= n; ++i)
		{
			v[nv++] = sn_v3(-s + 2.0 * s * i / n, -s + 2.0 * s * j / n, 0.0);
		}
	}
	for (int j = 0; j < n; ++j)
	{
		for (int i = 0; i < n; ++i)
		{
			int a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
			int32_t t[6] = { a, b, d, a, d, c };
			for (int k = 0; k < 6; ++k)
			{
				idx[ni++] = t[k];
			}
		}
	}
	return build(mem, v, nv, idx, n * n * 2);
}

static void test_validation(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	char detail[256];
	collide_mesh* mesh = NULL;
	sn_vec3 v[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 2, 0, 0 } };
	int32_t good[3] = { 0, 1, 2 };
	int32_t out_of_range[3] = { 0, 1, 4 };
	int32_t negative[3] = { 0, -1, 2 };
	int32_t repeated[3] = { 0, 1, 1 };
	int32_t collinear[3] = { 0, 1, 3 };
	assert_sn_error(mesh_build(&mem, v, 4, good, 0, &mesh, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(detail, "no triangles"));
	assert_sn_error(mesh_build(&mem, v, 4, out_of_range, 1, &mesh, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(detail, "index 2 is 4"));
	assert_sn_error(mesh_build(&mem, v, 4, negative, 1, &mesh, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(mesh_build(&mem, v, 4, repeated, 1, &mesh, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(detail, "degenerate"));
	assert_sn_error(mesh_build(&mem, v, 4, collinear, 1, &mesh, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(detail, "degenerate"));
	assert_sn_error(mesh_build(&mem, v, 4, good, COLLIDE_MESH_MAX_TRIANGLES + 1, &mesh, detail, sizeof(detail)),
					SN_ERR_CAPACITY);
	assert_sn_error(mesh_build(&mem, NULL, 4, good, 1, &mesh, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	v[2].y = NAN;
	assert_sn_error(mesh_build(&mem, v, 4, good, 1, &mesh, detail, sizeof(detail)), SN_ERR_NOT_FINITE);
	assert_non_null(strstr(detail, "vertex 2"));
	assert_null(mesh);
	assert_int_equal(mem.stats.bytes_in_use, 0);
}

typedef struct visit_log
{
	int count;
	int order[4096];
} visit_log;

static bool log_visit(void* context, int triangle)
{
	visit_log* log = (visit_log*)context;
	log->order[log->count++] = triangle;
	return true;
}

// Random triangle soup: the BVH query finds exactly the triangles whose boxes overlap the query, in the
// same order every time; the depth stays within the median split's bound.
static void test_bvh_against_brute_force(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	test_rng rng = { 2024 };
	enum
	{
		N = 3000
	};
	static sn_vec3 v[3 * N];
	static int32_t idx[3 * N];
	for (int t = 0; t < N; ++t)
	{
		sn_vec3 c = rng_vec3(&rng, -10, 10);
		for (int k = 0; k < 3; ++k)
		{
			v[3 * t + k] = sn_add(c, rng_vec3(&rng, -0.5, 0.5));
			idx[3 * t + k] = 3 * t + k;
		}
	}
	collide_mesh* mesh = build(&mem, v, 3 * N, idx, N);
	int bound = (int)ceil(log2((double)N / COLLIDE_BVH_LEAF_SIZE)) + 1;
	assert_true(mesh->depth <= bound);
	static visit_log a, b;
	for (int q = 0; q < 100; ++q)
	{
		sn_vec3 c = rng_vec3(&rng, -10, 10);
		collide_aabb box = aabb_make(sn_sub(c, rng_vec3(&rng, 0, 2)), sn_add(c, rng_vec3(&rng, 0, 2)));
		a.count = b.count = 0;
		bvh_query(mesh, box, log_visit, &a);
		bvh_query(mesh, box, log_visit, &b);
		assert_int_equal(a.count, b.count);
		assert_memory_equal(a.order, b.order, (size_t)a.count * sizeof(int));
		int expected = 0;
		for (int t = 0; t < N; ++t)
		{
			sn_vec3 p[3];
			mesh_triangle(mesh, t, p);
			collide_aabb tb = aabb_add_point(aabb_add_point(aabb_point(p[0]), p[1]), p[2]);
			if (aabb_overlaps(tb, box))
			{
				expected += 1;
				bool found = false;
				for (int i = 0; i < a.count && !found; ++i)
				{
					found = a.order[i] == t;
				}
				assert_true(found);
			}
		}
		assert_int_equal(a.count, expected);
	}
	mesh_destroy(&mem, mesh);
	assert_int_equal(mem.stats.bytes_in_use, 0);
}

// Edge classification: a flat grid's inner edges are inactive and its border active; a ridge of 30
// degrees is active, a valley inactive.
static void test_active_edges(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	collide_mesh* grid = floor_grid(&mem, 1.0, 4);
	int active = 0, inactive = 0;
	for (int t = 0; t < grid->triangle_count; ++t)
	{
		for (int k = 0; k < 3; ++k)
		{
			if (grid->edge_flags[t] & COLLIDE_EDGE_ACTIVE(k))
			{
				active += 1;
			}
			else
			{
				inactive += 1;
			}
		}
	}
	assert_int_equal(active, 4 * 4); // the border: 4 sides of 4 cells
	assert_int_equal(inactive, 3 * 32 - 16);
	mesh_destroy(&mem, grid);
	// Ridge: two triangles meeting along x at z = h, sloping down to y = +-1 (tan 30 deg slope).
	for (int shape = 0; shape < 2; ++shape)
	{
		double h = shape == 0 ? tan(SN_PI / 6.0) : -tan(SN_PI / 6.0);
		sn_vec3 v[4] = { { 0, 0, h }, { 1, 0, h }, { 0, -1, 0 }, { 1, 1, 0 } };
		int32_t idx[6] = { 0, 2, 1, 0, 1, 3 };
		collide_mesh* m = build(&mem, v, 4, idx, 2);
		// The shared edge is edge 2 of the first (1 -> 0) and edge 0 of the second (0 -> 1).
		bool ridge_active = (m->edge_flags[1] & COLLIDE_EDGE_ACTIVE(0)) != 0;
		assert_true(shape == 0 ? ridge_active : !ridge_active);
		mesh_destroy(&mem, m);
	}
	assert_int_equal(mem.stats.bytes_in_use, 0);
}

static double min_sep(const collide_manifold* m)
{
	double s = INFINITY;
	for (int i = 0; i < m->point_count; ++i)
	{
		s = fmin(s, m->points[i].separation);
	}
	return s;
}

// A box sliding across the diagonal seam of a two-triangle floor, 1 mm into it, yawed so its corners
// cross the seam one at a time. Seen from the triangle it is leaving, a corner past the seam is a sliver of
// overlap whose least translation is sideways (the catch); with active edges every manifold keeps the
// floor's normal and the full depth. With the seam marked active (as it would be without the
// classification) the same slide produces sideways normals, which shows the check can fail.
static int slide_over_seam(const collide_mesh* floor, double* worst_tilt)
{
	collide_shape box = collide_make_box(sn_v3(0.1, 0.1, 0.05));
	collide_shape mesh_shape = collide_make_mesh(floor);
	int bad = 0;
	*worst_tilt = 0.0;
	for (int step = 0; step <= 200; ++step)
	{
		double x = -0.4 + 0.004 * step;
		sn_transform xb = pose(sn_v3(x, -0.2 * x + 0.05, 0.05 - 0.001), sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.3));
		collide_manifold out[COLLIDE_MAX_MANIFOLDS];
		int n = collide_shapes(&mesh_shape, sn_transform_identity(), &box, xb, 0.002, out);
		for (int i = 0; i < n; ++i)
		{
			double tilt = angle_between(out[i].normal, sn_v3(0, 0, 1));
			*worst_tilt = fmax(*worst_tilt, tilt);
			if (tilt > 1e-9 || fabs(min_sep(&out[i]) + 0.001) > 1e-9)
			{
				bad += 1;
			}
		}
		assert_true(n >= 1);
	}
	return bad;
}

static void test_internal_edges(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	collide_mesh* floor = floor_grid(&mem, 1.0, 1); // one square: two triangles, the diagonal shared
	double tilt;
	int bad = slide_over_seam(floor, &tilt);
	report_measure("largest tilt of a floor contact normal with active edges (rad)", tilt);
	assert_int_equal(bad, 0);
	// Mark every edge active: the seam now catches.
	floor->edge_flags[0] = floor->edge_flags[1] = 7;
	bad = slide_over_seam(floor, &tilt);
	report_measure("largest tilt without them (rad)", tilt);
	assert_true(bad > 0);
	mesh_destroy(&mem, floor);
}

// A box in the corner of a floor and a wall (a mesh of four triangles): two manifolds, +z and +x.
static void test_corner_two_manifolds(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	sn_vec3 v[6] = { { 0, -1, 0 }, { 2, -1, 0 }, { 2, 1, 0 }, { 0, 1, 0 }, { 0, -1, 2 }, { 0, 1, 2 } };
	// Floor (normal +z) and wall at x = 0 (normal +x), meeting in a concave edge.
	int32_t idx[12] = { 0, 1, 2, 0, 2, 3, 0, 3, 5, 0, 5, 4 };
	collide_mesh* mesh = build(&mem, v, 6, idx, 4);
	collide_shape shape = collide_make_mesh(mesh);
	collide_shape box = collide_make_box(sn_v3(0.1, 0.1, 0.1));
	collide_manifold out[COLLIDE_MAX_MANIFOLDS];
	int n = collide_shapes(&shape, sn_transform_identity(), &box, pose_at(0.099, 0.0, 0.098), 0.0, out);
	assert_int_equal(n, 2);
	int floor_i = fabs(out[0].normal.z) > 0.5 ? 0 : 1;
	assert_near(out[floor_i].normal.z, 1.0, 1e-12, "floor normal");
	assert_near(out[1 - floor_i].normal.x, 1.0, 1e-12, "wall normal");
	assert_near(min_sep(&out[floor_i]), -0.002, 1e-12, "0.002 into the floor");
	assert_near(min_sep(&out[1 - floor_i]), -0.001, 1e-12, "0.001 into the wall");
	assert_int_equal(out[floor_i].point_count, 4);
	// The same box the other way round (box first): normals flipped.
	n = collide_shapes(&box, pose_at(0.099, 0.0, 0.098), &shape, sn_transform_identity(), 0.0, out);
	assert_int_equal(n, 2);
	assert_near(fabs(out[0].normal.x) + fabs(out[0].normal.z), 1.0, 1e-12, "axis normals");
	assert_true(out[0].normal.x <= 0.0 && out[0].normal.z <= 0.0);
	// Feature ids carry the triangle index in their high half.
	for (int i = 0; i < out[0].point_count; ++i)
	{
		uint64_t tri = out[0].points[i].id >> 32;
		assert_true(tri >= 1 && tri <= 4);
	}
	mesh_destroy(&mem, mesh);
}

// A sphere resting on a grid floor: one manifold, the right depth, wherever it sits (on a vertex, an edge
// or a face of the grid).
static void test_sphere_on_grid(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	collide_mesh* grid = floor_grid(&mem, 1.0, 8);
	collide_shape shape = collide_make_mesh(grid);
	collide_shape ball = collide_make_sphere(0.1);
	test_rng rng = { 5 };
	for (int i = 0; i < 200; ++i)
	{
		double x = i < 3 ? 0.25 * i : rng_range(&rng, -0.8, 0.8);
		double y = i < 3 ? 0.0 : rng_range(&rng, -0.8, 0.8);
		collide_manifold out[COLLIDE_MAX_MANIFOLDS];
		int n = collide_shapes(&shape, sn_transform_identity(), &ball, pose_at(x, y, 0.097), 0.0, out);
		assert_int_equal(n, 1);
		assert_near(out[0].normal.z, 1.0, 1e-12, "the floor's normal");
		assert_near(min_sep(&out[0]), -0.003, 1e-12, "0.003 deep");
	}
	mesh_destroy(&mem, grid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validation),           cmocka_unit_test(test_bvh_against_brute_force),
		cmocka_unit_test(test_active_edges),         cmocka_unit_test(test_internal_edges),
		cmocka_unit_test(test_corner_two_manifolds), cmocka_unit_test(test_sphere_on_grid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
