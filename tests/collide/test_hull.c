// Quickhull (hull.c): boxes, cylinders as points, random clouds, near-coplanar and degenerate input, the
// vertex limit, scale, and that every build's scratch is freed.
#include "collide_support.h"

#include "collide/hull.h"

static collide_hull* build_ok(sn_memory* m, const sn_vec3* p, int n)
{
	collide_hull* hull = NULL;
	char detail[256] = "";
	sn_error err = hull_build(m, p, n, &hull, detail, sizeof(detail));
	if (err != SN_ERR_OK)
	{
		fail_msg("hull_build failed: %s (%s)", sn_error_name(err), detail);
	}
	if (!hull_validate(hull, detail, sizeof(detail)))
	{
		fail_msg("hull_validate: %s", detail);
	}
	return hull;
}

// Every point within the hull: below every plane by the build tolerance (points closer than that to the
// hull may be left out, which is the definition of the tolerance).
static void assert_contains(const collide_hull* hull, const sn_vec3* p, int n, double slack)
{
	for (int i = 0; i < n; ++i)
	{
		for (int f = 0; f < hull->face_count; ++f)
		{
			double d = sn_dot(hull->planes[f].normal, p[i]) - hull->planes[f].offset;
			assert_below(d, slack, "a point outside the hull by more than the build tolerance");
		}
	}
}

static int box_corners(sn_vec3* out, sn_vec3 c, sn_vec3 h)
{
	int n = 0;
	for (int i = 0; i < 8; ++i)
	{
		out[n++] = sn_v3(c.x + ((i & 1) ? h.x : -h.x), c.y + ((i & 2) ? h.y : -h.y), c.z + ((i & 4) ? h.z : -h.z));
	}
	return n;
}

static void test_box_corners(void** state)
{
	(void)state;
	sn_memory m = test_memory();
	sn_vec3 p[8];
	box_corners(p, sn_v3(0, 0, 0), sn_v3(0.5, 0.25, 0.1));
	collide_hull* hull = build_ok(&m, p, 8);
	assert_int_equal(hull->vertex_count, 8);
	assert_int_equal(hull->face_count, 6);
	assert_int_equal(hull->edge_count, 12);
	for (int f = 0; f < 6; ++f)
	{
		assert_int_equal(hull->faces[f].count, 4);
		// Axis-aligned unit normals and offsets equal to the half-extent along them (exact input, so
		// only rounding separates them: 1e-15).
		sn_vec3 n = hull->planes[f].normal;
		double h = fabs(n.x) * 0.5 + fabs(n.y) * 0.25 + fabs(n.z) * 0.1;
		assert_near(fabs(n.x) + fabs(n.y) + fabs(n.z), 1.0, 1e-15, "a box face normal is an axis");
		assert_near(hull->planes[f].offset, h, 1e-15, "a box face lies at the half-extent");
	}
	assert_near(hull->centroid.x, 0.0, 1e-15, "centroid of a centred box");
	assert_near(hull->centroid.z, 0.0, 1e-15, "centroid of a centred box");
	assert_false(hull->simplified);
	hull_destroy(&m, hull);
	assert_int_equal(m.stats.bytes_in_use, 0);
}

// A box sampled on a 7x7 grid over every face, edges and corners included: the face and edge points
// lie within the tolerance of the hull and are never added; the result is the 8 corners and 6 quads.
static void test_box_grid(void** state)
{
	(void)state;
	sn_memory m = test_memory();
	sn_vec3 p[6 * 49];
	int n = 0;
	for (int axis = 0; axis < 3; ++axis)
	{
		for (int side = -1; side <= 1; side += 2)
		{
			for (int i = 0; i < 7; ++i)
			{
				for (int j = 0; j < 7; ++j)
				{
					double u = -1.0 + i / 3.0, v = -1.0 + j / 3.0;
					double c[3];
					c[axis] = side;
					c[(axis + 1) % 3] = u;
					c[(axis + 2) % 3] = v;
					p[n++] = sn_v3(0.3 * c[0], 0.2 * c[1], 0.7 * c[2]);
				}
			}
		}
	}
	collide_hull* hull = build_ok(&m, p, n);
	assert_int_equal(hull->vertex_count, 8);
	assert_int_equal(hull->face_count, 6);
	assert_contains(hull, p, n, 1e-12);
	hull_destroy(&m, hull);
	assert_int_equal(m.stats.bytes_in_use, 0);
}

// A cylinder as points: 32 around each cap. Caps merge into two 32-gons, sides into 32 rectangles.
static void test_cylinder_points(void** state)
{
	(void)state;
	sn_memory m = test_memory();
	sn_vec3 p[64];
	for (int i = 0; i < 32; ++i)
	{
		double a = 2.0 * SN_PI * i / 32.0;
		p[2 * i] = sn_v3(0.2 * cos(a), 0.2 * sin(a), -0.5);
		p[2 * i + 1] = sn_v3(0.2 * cos(a), 0.2 * sin(a), 0.5);
	}
	collide_hull* hull = build_ok(&m, p, 64);
	assert_int_equal(hull->vertex_count, 64);
	assert_int_equal(hull->face_count, 34);
	int caps = 0, quads = 0;
	for (int f = 0; f < hull->face_count; ++f)
	{
		caps += hull->faces[f].count == 32;
		quads += hull->faces[f].count == 4;
	}
	assert_int_equal(caps, 2);
	assert_int_equal(quads, 32);
	// The support face along +z is the top cap.
	int top = hull_support_face(hull, sn_v3(0.01, 0.02, 1.0));
	assert_int_equal(hull->faces[top].count, 32);
	assert_near(hull->planes[top].normal.z, 1.0, 1e-12, "the top cap's normal is +z (exact input)");
	hull_destroy(&m, hull);
	assert_int_equal(m.stats.bytes_in_use, 0);
}

// Random clouds in a ball: valid, contain every input point, and every hull vertex is an input point.
static void test_random_clouds(void** state)
{
	(void)state;
	sn_memory m = test_memory();
	test_rng rng = { 0x9e3779b97f4a7c15ull };
	static sn_vec3 p[2000];
	for (int trial = 0; trial < 40; ++trial)
	{
		int n = 4 + (int)(rng_uniform(&rng) * 1996.0);
		double scale = pow(10.0, rng_range(&rng, -3.0, 3.0));
		sn_vec3 centre = rng_vec3(&rng, -10.0 * scale, 10.0 * scale);
		for (int i = 0; i < n; ++i)
		{
			sn_vec3 d = rng_direction(&rng);
			p[i] = sn_add(centre, sn_scale(scale * cbrt(rng_uniform(&rng)), d));
		}
		collide_hull* hull = build_ok(&m, p, n);
		assert_contains(hull, p, n, 2.0 * hull->tolerance);
		for (int v = 0; v < hull->vertex_count; ++v)
		{
			bool found = false;
			for (int i = 0; i < n && !found; ++i)
			{
				found = hull->vertices[v].x == p[i].x && hull->vertices[v].y == p[i].y && hull->vertices[v].z == p[i].z;
			}
			assert_true(found);
		}
		hull_destroy(&m, hull);
	}
	assert_int_equal(m.stats.bytes_in_use, 0);
}

// Points on a sphere are all extreme: 200 give 200 vertices and a triangulated hull (F = 2 V - 4).
// 1000 exceed the limit: the hull keeps 256 of them and says it was simplified.
static void test_sphere_points_and_limit(void** state)
{
	(void)state;
	sn_memory m = test_memory();
	test_rng rng = { 12345 };
	static sn_vec3 p[1000];
	for (int i = 0; i < 1000; ++i)
	{
		p[i] = rng_direction(&rng);
	}
	collide_hull* hull = build_ok(&m, p, 200);
	assert_int_equal(hull->vertex_count, 200);
	assert_int_equal(hull->face_count, 2 * 200 - 4);
	assert_false(hull->simplified);
	hull_destroy(&m, hull);

	hull = build_ok(&m, p, 1000);
	assert_int_equal(hull->vertex_count, COLLIDE_HULL_MAX_VERTICES);
	assert_true(hull->simplified);
	// An inner approximation of the unit sphere by its 256 most extreme points: every input point is
	// within 0.1 of it (the largest gap between 256 points spread over a unit sphere is about 0.15 rad,
	// which leaves a sagitta near 0.01; 0.1 is a loose bound that still fails for a broken hull).
	assert_contains(hull, p, 1000, 0.1);
	hull_destroy(&m, hull);
	assert_int_equal(m.stats.bytes_in_use, 0);
}

// Near-coplanar input: box corners moved by 1e-9 of their size (below the 1e-6 relative tolerance) still
// give 6 quads; moved by 1e-3 (above it) they give a valid hull of the 8 points.
static void test_near_coplanar(void** state)
{
	(void)state;
	sn_memory m = test_memory();
	test_rng rng = { 777 };
	sn_vec3 p[8];
	box_corners(p, sn_v3(3, -2, 1), sn_v3(1, 1, 1));
	for (int i = 0; i < 8; ++i)
	{
		p[i] = sn_add(p[i], rng_vec3(&rng, -2e-9, 2e-9));
	}
	collide_hull* hull = build_ok(&m, p, 8);
	assert_int_equal(hull->face_count, 6);
	assert_int_equal(hull->vertex_count, 8);
	hull_destroy(&m, hull);

	box_corners(p, sn_v3(0, 0, 0), sn_v3(1, 1, 1));
	for (int i = 0; i < 8; ++i)
	{
		p[i] = sn_add(p[i], rng_vec3(&rng, -2e-3, 2e-3));
	}
	hull = build_ok(&m, p, 8);
	assert_int_equal(hull->vertex_count, 8);
	assert_true(hull->face_count >= 6 && hull->face_count <= 12);
	hull_destroy(&m, hull);
	assert_int_equal(m.stats.bytes_in_use, 0);
}

// Scale: a box 1e-4 m and one 1e4 m placed 1e5 m from the origin both give 6 quads.
static void test_scale(void** state)
{
	(void)state;
	sn_memory m = test_memory();
	sn_vec3 p[8];
	double sizes[2] = { 1e-4, 1e4 };
	for (int s = 0; s < 2; ++s)
	{
		box_corners(p, sn_v3(1e5, -1e5, 3e4), sn_v3(sizes[s], 2.0 * sizes[s], 0.5 * sizes[s]));
		collide_hull* hull = build_ok(&m, p, 8);
		assert_int_equal(hull->face_count, 6);
		hull_destroy(&m, hull);
	}
	assert_int_equal(m.stats.bytes_in_use, 0);
}

static void test_degenerate_input(void** state)
{
	(void)state;
	sn_memory m = test_memory();
	char detail[256];
	collide_hull* hull = NULL;
	sn_vec3 p[16];
	for (int i = 0; i < 16; ++i)
	{
		p[i] = sn_v3(i % 4, i / 4, 0.0); // a 4x4 grid in z = 0
	}
	assert_sn_error(hull_build(&m, p, 3, &hull, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(detail, "at least 4"));
	assert_sn_error(hull_build(&m, p, 16, &hull, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(detail, "coplanar"));
	for (int i = 0; i < 16; ++i)
	{
		p[i] = sn_v3(0.1 * i, 0.2 * i, -0.3 * i);
	}
	assert_sn_error(hull_build(&m, p, 16, &hull, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(detail, "collinear"));
	for (int i = 0; i < 16; ++i)
	{
		p[i] = sn_v3(1.0, 2.0, 3.0);
	}
	assert_sn_error(hull_build(&m, p, 16, &hull, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(detail, "duplicates"));
	// Nearly coplanar: a 1 m square 1e-9 m thick is flat at the 1e-6 relative tolerance.
	box_corners(p, sn_v3(0, 0, 0), sn_v3(0.5, 0.5, 0.5e-9));
	assert_sn_error(hull_build(&m, p, 8, &hull, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	box_corners(p, sn_v3(0, 0, 0), sn_v3(1, 1, 1));
	p[5].y = NAN;
	assert_sn_error(hull_build(&m, p, 8, &hull, detail, sizeof(detail)), SN_ERR_NOT_FINITE);
	assert_non_null(strstr(detail, "point 5"));
	p[5].y = INFINITY;
	assert_sn_error(hull_build(&m, p, 8, &hull, detail, sizeof(detail)), SN_ERR_NOT_FINITE);
	p[5].y = 1e300;
	assert_sn_error(hull_build(&m, p, 8, &hull, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(hull_build(&m, p, COLLIDE_HULL_MAX_POINTS + 1, &hull, detail, sizeof(detail)), SN_ERR_CAPACITY);
	assert_sn_error(hull_build(&m, NULL, 8, &hull, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	assert_null(hull);
	assert_int_equal(m.stats.bytes_in_use, 0);
}

// Out of memory during a build: a typed error, nothing leaked.
static void* failing_alloc(void* context, size_t size)
{
	int* budget = (int*)context;
	if (*budget <= 0)
	{
		return NULL;
	}
	*budget -= 1;
	return malloc(size);
}
static void plain_free(void* context, void* p, size_t size)
{
	(void)context;
	(void)size;
	free(p);
}

static void test_out_of_memory(void** state)
{
	(void)state;
	sn_vec3 p[8];
	box_corners(p, sn_v3(0, 0, 0), sn_v3(1, 1, 1));
	for (int budget0 = 0; budget0 < 2; ++budget0)
	{
		int budget = budget0;
		sn_allocator a = { failing_alloc, plain_free, &budget };
		sn_memory m;
		memory_init(&m, a);
		collide_hull* hull = NULL;
		assert_sn_error(hull_build(&m, p, 8, &hull, NULL, 0), SN_ERR_NO_MEMORY);
		assert_null(hull);
		assert_int_equal(m.stats.bytes_in_use, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_box_corners),
		cmocka_unit_test(test_box_grid),
		cmocka_unit_test(test_cylinder_points),
		cmocka_unit_test(test_random_clouds),
		cmocka_unit_test(test_sphere_points_and_limit),
		cmocka_unit_test(test_near_coplanar),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_degenerate_input),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
