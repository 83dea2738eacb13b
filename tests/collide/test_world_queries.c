// Queries against the world: ray casts through every shape type (closest and all hits) against closed
// forms, filters and sensors, rays from inside a solid, bodies moved by a setter since the last step;
// overlap of a solid placed in the world; closest points of two shapes (a mesh included); bad input.
#include "world_support.h"

static const sn_body_id world_body = { 0, 0 };

typedef struct row
{
	sn_shape_id shape[8];
	sn_body_id capsule_body;
	double entry[8]; // x where the ray along +x at y = z = 0 enters each shape
} row;

// One shape of each type along x: sphere r 0.5 at 0, capsule r 0.3 at 2 (on a body turned 90 degrees
// about x, so its axis lies along y), box of half 0.4 at 4, cylinder r 0.35 at 6 (axis z), hull of a
// cube of half 0.25 at 8, a mesh square facing -x at 10, a plane whose solid is x >= 12; and a sensor
// box at -5.
static row build_row(sn_world* world)
{
	row r;
	r.shape[0] = make_shape(world, world_body, sn_geometry_sphere(0.5), at(0, 0, 0));
	r.capsule_body =
		make_body(world, SN_BODY_DYNAMIC, posed(sn_v3(2, 0, 0), sn_quat_from_axis_angle(sn_v3(1, 0, 0), 0.5 * SN_PI)));
	r.shape[1] = make_shape(world, r.capsule_body, sn_geometry_capsule(0.3, 0.5), sn_transform_identity());
	r.shape[2] = make_shape(world, world_body, sn_geometry_box(sn_v3(0.4, 0.4, 0.4)), at(4, 0, 0));
	r.shape[3] = make_shape(world, world_body, sn_geometry_cylinder(0.35, 0.5), at(6, 0, 0));
	sn_vec3 cube[8];
	for (int i = 0; i < 8; ++i)
	{
		cube[i] = sn_v3((i & 1) ? 0.25 : -0.25, (i & 2) ? 0.25 : -0.25, (i & 4) ? 0.25 : -0.25);
	}
	r.shape[4] = make_shape(world, world_body, sn_geometry_hull(cube, 8), at(8, 0, 0));
	const sn_vec3 v[4] = { { 10, -1, -1 }, { 10, 1, -1 }, { 10, 1, 1 }, { 10, -1, 1 } };
	const int32_t idx[6] = { 0, 1, 2, 0, 2, 3 };
	r.shape[5] = make_shape(world, world_body, sn_geometry_mesh(v, 4, idx, 2), sn_transform_identity());
	r.shape[6] = make_shape(world, world_body, sn_geometry_plane(sn_v3(-1, 0, 0), -12.0), sn_transform_identity());
	sn_shape_def sd = sn_default_shape_def();
	sd.geometry = sn_geometry_box(sn_v3(0.5, 0.5, 0.5));
	sd.local_pose = at(-5, 0, 0);
	sd.is_sensor = true;
	assert_sn_ok(sn_create_shape(world, &sd, &r.shape[7]));
	const double entry[8] = { -0.5, 1.7, 3.6, 5.65, 7.75, 10.0, 12.0, -5.5 };
	memcpy(r.entry, entry, sizeof(entry));
	return r;
}

static void test_rays_every_type(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	row r = build_row(world);
	step(world, 1);
	sn_vec3 origin = sn_v3(-10, 0, 0), translation = sn_v3(30, 0, 0);
	sn_ray_hit hits[8];
	int count = -1;
	assert_sn_ok(sn_world_ray_cast_all(world, origin, translation, NULL, hits, 8, &count));
	assert_int_equal(count, 7); // every shape but the sensor
	for (int k = 0; k < 7; ++k)
	{
		assert_true(sn_shape_id_equals(hits[k].shape, r.shape[k])); // nearest first
		assert_near(hits[k].fraction, (r.entry[k] + 10.0) / 30.0, 1e-12, "closed-form entry, rounding");
		assert_near(hits[k].point.x, r.entry[k], 1e-11, "the entry point, rounding of origin + t d");
		assert_near(hits[k].normal.x, -1.0, 1e-12, "every surface faces the ray head on");
		assert_int_equal(hits[k].triangle, k == 5 ? hits[k].triangle : -1);
	}
	assert_true(hits[5].triangle == 0 || hits[5].triangle == 1);
	assert_true(sn_body_id_equals(hits[1].body, r.capsule_body));
	// Fewer slots than hits: the nearest ones, and the total.
	assert_sn_ok(sn_world_ray_cast_all(world, origin, translation, NULL, hits, 2, &count));
	assert_int_equal(count, 7);
	assert_true(sn_shape_id_equals(hits[0].shape, r.shape[0]) && sn_shape_id_equals(hits[1].shape, r.shape[1]));
	// Closest; with sensors; with a filter that leaves out the sphere's category.
	sn_ray_hit hit;
	bool found = false;
	assert_sn_ok(sn_world_ray_cast_closest(world, origin, translation, NULL, &hit, &found));
	assert_true(found && sn_shape_id_equals(hit.shape, r.shape[0]));
	sn_query_filter f = sn_default_query_filter();
	f.include_sensors = true;
	assert_sn_ok(sn_world_ray_cast_closest(world, origin, translation, &f, &hit, &found));
	assert_true(found && sn_shape_id_equals(hit.shape, r.shape[7]));
	assert_near(hit.fraction, 4.5 / 30.0, 1e-12, "the sensor box's face at -5.5");
	sn_filter own = { 2, UINT64_MAX };
	assert_sn_ok(sn_shape_set_filter(world, r.shape[0], own));
	f = sn_default_query_filter();
	f.mask = ~(uint64_t)2;
	assert_sn_ok(sn_world_ray_cast_closest(world, origin, translation, &f, &hit, &found));
	assert_true(found && sn_shape_id_equals(hit.shape, r.shape[1]));
	// And the shape's own mask: a shape that collides with nothing of the query's category.
	own.mask = 0;
	assert_sn_ok(sn_shape_set_filter(world, r.shape[0], own));
	assert_sn_ok(sn_world_ray_cast_closest(world, origin, translation, NULL, &hit, &found));
	assert_true(found && sn_shape_id_equals(hit.shape, r.shape[1]));
	// An oblique ray into the sphere (its filter back): x = -sqrt(0.25 - 0.09) = -0.4, normal (-0.4, 0.3)/0.5.
	assert_sn_ok(sn_shape_set_filter(world, r.shape[0], sn_default_filter()));
	assert_sn_ok(sn_world_ray_cast_closest(world, sn_v3(-2, 0.3, 0), sn_v3(3, 0, 0), NULL, &hit, &found));
	assert_true(found);
	assert_near(hit.point.x, -0.4, 1e-12, "sphere entry, rounding");
	assert_near(hit.normal.x, -0.8, 1e-12, "sphere normal, rounding");
	assert_near(hit.normal.y, 0.6, 1e-12, "sphere normal, rounding");
	// From inside the box: the box is not hit; the cylinder is next.
	assert_sn_ok(sn_world_ray_cast_closest(world, sn_v3(4, 0, 0), sn_v3(10, 0, 0), NULL, &hit, &found));
	assert_true(found && sn_shape_id_equals(hit.shape, r.shape[3]));
	// A zero translation, a ray that misses everything.
	assert_sn_ok(sn_world_ray_cast_closest(world, origin, sn_v3(0, 0, 0), NULL, &hit, &found));
	assert_false(found);
	assert_sn_ok(sn_world_ray_cast_closest(world, sn_v3(-10, 5, 0), sn_v3(10, 0, 0), NULL, &hit, &found));
	assert_false(found);
	sn_world_destroy(world);
}

// A body moved by a setter since the last step (and a new articulation pose) is where the ray finds it.
static void test_rays_see_setters(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	sn_body_id b = make_body(world, SN_BODY_DYNAMIC, at(0, 0, 0));
	make_shape(world, b, sn_geometry_sphere(0.5), sn_transform_identity());
	sn_link_def link = sn_default_link_def();
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id art;
	assert_sn_ok(sn_create_articulation(world, &ad, &link, 1, &art));
	sn_shape_id on_link = make_shape(world, sn_articulation_get_link_body(world, art, 0), sn_geometry_sphere(0.25),
									 sn_transform_identity());
	step(world, 3);
	assert_sn_ok(sn_body_set_pose(world, b, at(0, 50, 0))); // 50 m away: far outside its fat box
	assert_sn_ok(sn_articulation_set_base_pose(world, art, at(20, 0, 0)));
	sn_ray_hit hit;
	bool found;
	assert_sn_ok(sn_world_ray_cast_closest(world, sn_v3(0, 40, 0), sn_v3(0, 20, 0), NULL, &hit, &found));
	assert_true(found);
	assert_near(hit.point.y, 49.5, 1e-12, "the sphere where it was put");
	assert_sn_ok(sn_world_ray_cast_closest(world, sn_v3(10, 0, 0), sn_v3(20, 0, 0), NULL, &hit, &found));
	assert_true(found && sn_shape_id_equals(hit.shape, on_link));
	assert_near(hit.point.x, 19.75, 1e-12, "the link's sphere at the new base pose");
	sn_world_destroy(world);
}

static void test_overlap_and_closest_points(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	row r = build_row(world);
	step(world, 1);
	sn_shape_id found[8];
	int count;
	// A sphere of 0.6 at x = 1 reaches the sphere (gap 0.5) but not the capsule (gap 0.7).
	sn_geometry probe = sn_geometry_sphere(0.6);
	assert_sn_ok(sn_world_overlap_geometry(world, &probe, at(1, 0, 0), NULL, found, 8, &count));
	assert_int_equal(count, 1);
	assert_true(sn_shape_id_equals(found[0], r.shape[0]));
	// A box of half 1.2 at x = 11 holds the mesh square and reaches the plane's solid (x >= 12).
	probe = sn_geometry_box(sn_v3(1.2, 1.2, 1.2));
	assert_sn_ok(sn_world_overlap_geometry(world, &probe, at(11, 0, 0), NULL, found, 8, &count));
	assert_int_equal(count, 2);
	assert_true(sn_shape_id_equals(found[0], r.shape[5]) && sn_shape_id_equals(found[1], r.shape[6])); // by slot
	// A long box over everything, sensors included: all eight, in slot order; capacity 3 keeps the first.
	probe = sn_geometry_box(sn_v3(20, 0.1, 0.1));
	sn_query_filter f = sn_default_query_filter();
	f.include_sensors = true;
	assert_sn_ok(sn_world_overlap_geometry(world, &probe, at(0, 0, 0), &f, found, 3, &count));
	assert_int_equal(count, 8);
	for (int k = 0; k < 3; ++k)
	{
		assert_true(sn_shape_id_equals(found[k], r.shape[k]));
	}
	// Closest points: sphere to box 4 - 0.4 - 0.5 = 3.1 m; plane to sphere 12 - 0.5 = 11.5 m; overlapping
	// sphere and capsule moved into it: a negative distance.
	sn_distance_result d;
	assert_sn_ok(sn_shape_get_closest_points(world, r.shape[0], r.shape[2], &d));
	assert_near(d.distance, 3.1, 1e-9, "GJK on a sphere and a box, its tolerance relative to the size");
	assert_near(d.normal.x, 1.0, 1e-9, "from A to B");
	assert_sn_ok(sn_shape_get_closest_points(world, r.shape[6], r.shape[0], &d));
	assert_near(d.distance, 11.5, 1e-12, "a plane's distance is exact");
	assert_sn_ok(sn_body_set_pose(world, r.capsule_body, at(0.6, 0, 0)));
	assert_sn_ok(sn_shape_get_closest_points(world, r.shape[0], r.shape[1], &d));
	assert_near(d.distance, 0.6 - 0.8, 1e-9, "EPA depth of the sphere and the capsule's side, its tolerance");
	// The mesh square at x = 10 (facing -x) to the sphere at the origin: 10 - 0.5, from the mesh (A) to
	// the sphere (B); the sphere's closest point on the ray's line.
	assert_sn_ok(sn_shape_get_closest_points(world, r.shape[5], r.shape[0], &d));
	assert_near(d.distance, 9.5, 1e-9, "GJK against the mesh's nearest triangle, its tolerance");
	assert_near(d.normal.x, -1.0, 1e-9, "from A to B");
	assert_near(d.point_b.x, 0.5, 1e-9, "on the sphere");
	assert_near(d.point_a.x, 10.0, 1e-9, "on the mesh");
	// Bad input: two static shapes, an invalid id, rays and probes.
	assert_refused(world, sn_shape_get_closest_points(world, r.shape[5], r.shape[6], &d), SN_ERR_UNSUPPORTED);
	assert_refused(world, sn_shape_get_closest_points(world, r.shape[0], (sn_shape_id){ 99, 1 }, &d),
				   SN_ERR_INVALID_ID);
	sn_ray_hit hit;
	bool hit_found;
	assert_refused(world, sn_world_ray_cast_closest(world, sn_v3(NAN, 0, 0), sn_v3(1, 0, 0), NULL, &hit, &hit_found),
				   SN_ERR_NOT_FINITE);
	assert_refused(world, sn_world_ray_cast_closest(world, sn_v3(0, 0, 0), sn_v3(1e300, 0, 0), NULL, &hit, &hit_found),
				   SN_ERR_INVALID_ARGUMENT);
	assert_refused(world, sn_world_ray_cast_all(world, sn_v3(0, 0, 0), sn_v3(1, 0, 0), NULL, NULL, 3, &count),
				   SN_ERR_INVALID_ARGUMENT);
	probe = sn_geometry_sphere(-1.0);
	assert_refused(world, sn_world_overlap_geometry(world, &probe, at(0, 0, 0), NULL, found, 8, &count),
				   SN_ERR_NEGATIVE_VALUE);
	probe = sn_geometry_plane(sn_v3(0, 0, 1), 0);
	assert_refused(world, sn_world_overlap_geometry(world, &probe, at(0, 0, 0), NULL, found, 8, &count),
				   SN_ERR_UNSUPPORTED);
	probe = sn_geometry_sphere(1.0);
	assert_refused(
		world,
		sn_world_overlap_geometry(world, &probe, (sn_transform){ { 0, 0, 0 }, { 0, 0, 0, 0 } }, NULL, found, 8, &count),
		SN_ERR_ZERO_AXIS);
	// A hull probe is built and freed: the memory held is the same after.
	const sn_vec3 tetra[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
	probe = sn_geometry_hull(tetra, 4);
	size_t before = sn_world_get_memory_stats(world).bytes_in_use;
	assert_sn_ok(sn_world_overlap_geometry(world, &probe, at(-0.9, 0, 0), NULL, found, 8, &count));
	assert_int_equal(count, 1);
	assert_int_equal(sn_world_get_memory_stats(world).bytes_in_use, before);
	sn_world_destroy(world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rays_every_type),
		cmocka_unit_test(test_rays_see_setters),
		cmocka_unit_test(test_overlap_and_closest_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
