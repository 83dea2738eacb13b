// Shapes as world objects: validation (every bad def is a typed error that changes nothing, not even the
// memory held), getters and setters, lists per body, destruction with bodies, and mass properties from
// shapes against closed forms.
#include "world_support.h"

static sn_shape_def def_on(sn_body_id body, sn_geometry g)
{
	sn_shape_def sd = sn_default_shape_def();
	sd.body = body;
	sd.geometry = g;
	return sd;
}

// A world with something in it, so that "changed nothing" is a real check: a ground, a box on it, a
// step taken (pairs and manifolds exist).
static sn_world* busy_world(sn_body_id* box)
{
	sn_world* world = zero_g_world();
	make_ground(world);
	*box = box_body(world, SN_BODY_DYNAMIC, at(0, 0, 0.1), sn_v3(0.1, 0.1, 0.1), NULL);
	step(world, 2);
	assert_int_equal(sn_world_get_contacts(world, NULL, 0), 1);
	return world;
}

static void test_bad_sizes(void** state)
{
	(void)state;
	sn_body_id box;
	sn_world* world = busy_world(&box);
	sn_shape_id id;
	sn_shape_def sd;
	struct
	{
		sn_geometry g;
		sn_error expected;
	} cases[] = {
		{ sn_geometry_sphere(NAN), SN_ERR_NOT_FINITE },
		{ sn_geometry_sphere(INFINITY), SN_ERR_NOT_FINITE },
		{ sn_geometry_sphere(0.0), SN_ERR_INVALID_ARGUMENT },
		{ sn_geometry_sphere(-0.1), SN_ERR_NEGATIVE_VALUE },
		{ sn_geometry_sphere(1e-12), SN_ERR_INVALID_ARGUMENT },
		{ sn_geometry_sphere(2e6), SN_ERR_INVALID_ARGUMENT },
		{ sn_geometry_capsule(0.1, -0.2), SN_ERR_NEGATIVE_VALUE },
		{ sn_geometry_capsule(0.0, 0.2), SN_ERR_INVALID_ARGUMENT },
		{ sn_geometry_capsule(NAN, 0.2), SN_ERR_NOT_FINITE },
		{ sn_geometry_box(sn_v3(0.1, NAN, 0.1)), SN_ERR_NOT_FINITE },
		{ sn_geometry_box(sn_v3(0.1, 0.1, 0.0)), SN_ERR_INVALID_ARGUMENT },
		{ sn_geometry_box(sn_v3(-0.1, 0.1, 0.1)), SN_ERR_NEGATIVE_VALUE },
		{ sn_geometry_cylinder(0.1, 0.0), SN_ERR_INVALID_ARGUMENT },
		{ sn_geometry_cylinder(-1.0, 0.1), SN_ERR_NEGATIVE_VALUE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
	{
		sd = def_on(box, cases[i].g);
		assert_refused(world, sn_create_shape(world, &sd, &id), cases[i].expected);
	}
	// An unknown type.
	sd = def_on(box, sn_geometry_sphere(0.1));
	sd.geometry.type = (sn_shape_type)42;
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sn_world_destroy(world);
}

static void test_bad_hulls_and_meshes(void** state)
{
	(void)state;
	sn_body_id box;
	sn_world* world = busy_world(&box);
	sn_shape_id id;
	sn_shape_def sd;
	// Coplanar, collinear, coincident, too few, NULL, not finite.
	const sn_vec3 flat[5] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 1, 1, 0 }, { 0.5, 0.5, 0 } };
	const sn_vec3 line[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 }, { 3, 0, 0 } };
	const sn_vec3 dot[4] = { { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 } };
	const sn_vec3 nan_point[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, NAN } };
	sd = def_on(box, sn_geometry_hull(flat, 5));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(box, sn_geometry_hull(line, 4));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(box, sn_geometry_hull(dot, 4));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(box, sn_geometry_hull(flat, 3));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(box, sn_geometry_hull(NULL, 8));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(box, sn_geometry_hull(nan_point, 4));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_NOT_FINITE);

	// Meshes: no triangles, an index out of range, a negative index, a degenerate triangle, NULL arrays;
	// and a valid mesh on a dynamic body, a kinematic body, and a link's body.
	sn_body_id ground = { 0, 0 };
	const sn_vec3 v[4] = { { -1, -1, 0 }, { 1, -1, 0 }, { 1, 1, 0 }, { -1, 1, 0 } };
	const int32_t good[6] = { 0, 1, 2, 0, 2, 3 };
	const int32_t out_of_range[6] = { 0, 1, 2, 0, 2, 4 };
	const int32_t negative[6] = { 0, 1, 2, 0, -1, 3 };
	const int32_t degenerate[3] = { 0, 1, 1 };
	sd = def_on(ground, sn_geometry_mesh(v, 4, good, 0));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(ground, sn_geometry_mesh(v, 4, out_of_range, 2));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(ground, sn_geometry_mesh(v, 4, negative, 2));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(ground, sn_geometry_mesh(v, 4, degenerate, 1));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(ground, sn_geometry_mesh(NULL, 4, good, 2));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(ground, sn_geometry_mesh(v, 4, NULL, 2));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd = def_on(box, sn_geometry_mesh(v, 4, good, 2));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_WRONG_TYPE);
	sn_body_id kinematic = make_body(world, SN_BODY_KINEMATIC, at(5, 0, 0));
	sd = def_on(kinematic, sn_geometry_mesh(v, 4, good, 2));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_WRONG_TYPE);
	sn_link_def link = sn_default_link_def();
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id art;
	assert_sn_ok(sn_create_articulation(world, &ad, &link, 1, &art));
	sd = def_on(sn_articulation_get_link_body(world, art, 0), sn_geometry_mesh(v, 4, good, 2));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_WRONG_TYPE);
	// A plane on a dynamic body, and a zero or NaN normal.
	sd = def_on(box, sn_geometry_plane(sn_v3(0, 0, 1), 0.0));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_WRONG_TYPE);
	sd = def_on(ground, sn_geometry_plane(sn_v3(0, 0, 0), 0.0));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_ZERO_AXIS);
	sd = def_on(ground, sn_geometry_plane(sn_v3(0, NAN, 1), 0.0));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_NOT_FINITE);
	sd = def_on(ground, sn_geometry_plane(sn_v3(0, 0, 1), 5e6));
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	// The valid mesh is accepted on the world and on a static body.
	sd = def_on(ground, sn_geometry_mesh(v, 4, good, 2));
	assert_sn_ok(sn_create_shape(world, &sd, &id));
	sn_body_id shelf = make_body(world, SN_BODY_STATIC, at(0, 5, 0));
	sd = def_on(shelf, sn_geometry_mesh(v, 4, good, 2));
	assert_sn_ok(sn_create_shape(world, &sd, &id));
	// A static body with a mesh cannot become moving.
	assert_refused(world, sn_body_set_type(world, shelf, SN_BODY_KINEMATIC), SN_ERR_WRONG_TYPE);
	sn_world_destroy(world);
}

static void test_bad_def_fields(void** state)
{
	(void)state;
	sn_body_id box;
	sn_world* world = busy_world(&box);
	sn_shape_id id;
	sn_shape_def sd = def_on(box, sn_geometry_sphere(0.1));
	assert_refused(world, sn_create_shape(world, NULL, &id), SN_ERR_INVALID_ARGUMENT);
	assert_refused(world, sn_create_shape(world, &sd, NULL), SN_ERR_INVALID_ARGUMENT);
	// A stale body id: the box destroyed and its slot reused by another body.
	sn_body_id stale = make_body(world, SN_BODY_DYNAMIC, at(3, 0, 0));
	assert_sn_ok(sn_destroy_body(world, stale));
	sn_body_id reuse = make_body(world, SN_BODY_DYNAMIC, at(3, 0, 0));
	assert_int_equal(reuse.index1, stale.index1);
	sd.body = stale;
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ID);
	sd.body = (sn_body_id){ 9999, 1 };
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ID);
	sd.body = box;
	sd.local_pose.p = sn_v3(NAN, 0, 0);
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_NOT_FINITE);
	sd.local_pose.p = sn_v3(2e6, 0, 0);
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd.local_pose = sn_transform_identity();
	sd.local_pose.q = (sn_quat){ 0, 0, 0, 0 };
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_ZERO_AXIS);
	sd.local_pose = sn_transform_identity();
	sd.material.friction = NAN;
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_NOT_FINITE);
	sd.material.friction = -0.1;
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_NEGATIVE_VALUE);
	sd.material.friction = 0.5;
	sd.material.restitution = 1.5;
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);
	sd.material.restitution = 0.0;
	sd.material.soft = sn_soft_compliance(-1e-3, 0.0);
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_NEGATIVE_VALUE);
	sd.material.soft.kind = (sn_soft_kind)9;
	assert_refused(world, sn_create_shape(world, &sd, &id), SN_ERR_INVALID_ARGUMENT);

	// Setters and destroy on a stale shape id; bad materials through the setter.
	sd = def_on(box, sn_geometry_sphere(0.05));
	sn_shape_id gone;
	assert_sn_ok(sn_create_shape(world, &sd, &gone));
	assert_sn_ok(sn_destroy_shape(world, gone));
	assert_false(sn_shape_is_valid(world, gone));
	assert_refused(world, sn_destroy_shape(world, gone), SN_ERR_INVALID_ID);
	assert_refused(world, sn_shape_set_material(world, gone, sn_default_material()), SN_ERR_INVALID_ID);
	assert_refused(world, sn_shape_set_filter(world, gone, sn_default_filter()), SN_ERR_INVALID_ID);
	assert_refused(world, sn_shape_set_user_data(world, gone, 7), SN_ERR_INVALID_ID);
	sn_shape_id ids[4];
	assert_int_equal(sn_body_get_shapes(world, box, ids, 4), 1);
	sn_material bad = sn_default_material();
	bad.restitution = -0.5;
	assert_refused(world, sn_shape_set_material(world, ids[0], bad), SN_ERR_NEGATIVE_VALUE);
	assert_int_equal(sn_shape_get_type(world, gone), SN_SHAPE_SPHERE); // zero value for an invalid id
	sn_world_destroy(world);
}

static void test_getters_and_lists(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	sn_quat turn = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.3);
	sn_body_id b = make_body(world, SN_BODY_DYNAMIC, posed(sn_v3(1, 2, 3), turn));
	sn_transform local = posed(sn_v3(0.2, 0, 0), sn_quat_from_axis_angle(sn_v3(1, 0, 0), 0.5));
	sn_shape_id s1 = make_shape(world, b, sn_geometry_capsule(0.05, 0.2), local);
	const sn_vec3 tetra[5] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 0.1, 0.1, 0.1 } };
	sn_shape_id s2 = make_shape(world, b, sn_geometry_hull(tetra, 5), sn_transform_identity());
	sn_shape_id s3 = make_shape(world, b, sn_geometry_sphere(0.1), sn_transform_identity());
	sn_shape_id ground = make_ground(world);
	assert_int_equal(sn_world_get_shape_count(world), 4);
	sn_shape_id ids[8];
	assert_int_equal(sn_body_get_shapes(world, b, ids, 8), 3);
	assert_true(sn_shape_id_equals(ids[0], s1) && sn_shape_id_equals(ids[1], s2) && sn_shape_id_equals(ids[2], s3));
	assert_int_equal(sn_body_get_shapes(world, (sn_body_id){ 0, 0 }, ids, 8), 1);
	assert_true(sn_shape_id_equals(ids[0], ground));
	assert_int_equal(sn_world_get_shapes(world, ids, 2), 4); // total beyond the capacity
	assert_int_equal(sn_shape_get_type(world, s1), SN_SHAPE_CAPSULE);
	assert_true(sn_body_id_equals(sn_shape_get_body(world, s1), b));
	assert_true(sn_body_id_is_null(sn_shape_get_body(world, ground)));
	sn_transform pose = sn_shape_get_pose(world, s1);
	sn_transform expect = sn_transform_mul(sn_body_get_pose(world, b), local);
	assert_near(sn_length(sn_sub(pose.p, expect.p)), 0.0, 1e-15,
				"the body pose times the local pose, exactly composed");
	sn_geometry g;
	assert_sn_ok(sn_shape_get_geometry(world, s1, &g));
	assert_int_equal(g.type, SN_SHAPE_CAPSULE);
	assert_true(g.capsule.radius == 0.05 && g.capsule.half_length == 0.2);
	assert_sn_ok(sn_shape_get_geometry(world, s2, &g));
	assert_int_equal(g.hull.point_count, 5);
	assert_true(g.hull.points[4].x == 0.1); // the core's copy of the points as given
	sn_vec3 hull[8];
	assert_int_equal(sn_shape_get_hull_vertices(world, s2, hull, 8), 4); // the interior point is not a vertex
	// Bounds of the sphere: its centre at the body's origin, radius 0.1.
	sn_vec3 lo, hi;
	assert_sn_ok(sn_shape_get_bounds(world, s3, &lo, &hi));
	assert_near(lo.x, 0.9, 1e-15, "centre 1 minus radius 0.1");
	assert_near(hi.z, 3.1, 1e-15, "centre 3 plus radius 0.1");
	// Material and filter round trips; user data.
	sn_material m = sn_default_material();
	assert_near(m.friction, 0.6, 0.0, "Box2D's default friction");
	m.friction = 0.9;
	m.restitution = 0.3;
	m.soft = sn_soft_frequency(30.0, 1.0);
	assert_sn_ok(sn_shape_set_material(world, s3, m));
	assert_true(sn_shape_get_material(world, s3).restitution == 0.3);
	sn_filter f = { 4, 6 };
	assert_sn_ok(sn_shape_set_filter(world, s3, f));
	assert_true(sn_shape_get_filter(world, s3).mask == 6);
	assert_sn_ok(sn_shape_set_user_data(world, s3, 77));
	assert_int_equal(sn_shape_get_user_data(world, s3), 77);
	assert_false(sn_shape_is_sensor(world, s3));
	// A plane's normal is normalised on creation.
	sn_shape_id tilted =
		make_shape(world, (sn_body_id){ 0, 0 }, sn_geometry_plane(sn_v3(0, 3, 4), 1.0), sn_transform_identity());
	assert_sn_ok(sn_shape_get_geometry(world, tilted, &g));
	assert_near(g.plane.normal.y, 0.6, 1e-15, "(0, 3, 4) / 5");
	// Destroying the body destroys its shapes; the world's remain.
	assert_sn_ok(sn_destroy_body(world, b));
	assert_false(sn_shape_is_valid(world, s1) || sn_shape_is_valid(world, s2) || sn_shape_is_valid(world, s3));
	assert_int_equal(sn_world_get_shape_count(world), 2);
	step(world, 1);
	sn_world_destroy(world);
}

// sn_shape_def_compute_mass and sn_body_set_mass_from_shapes against closed forms.
static void test_mass_from_shapes(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	// A box of 0.2 x 0.4 x 0.6 m at density 500 placed 1 m along x, turned 90 degrees about z.
	sn_shape_def sd = sn_default_shape_def();
	sd.geometry = sn_geometry_box(sn_v3(0.1, 0.2, 0.3));
	sd.local_pose = posed(sn_v3(1, 0, 0), sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI));
	sn_mass_properties mp;
	assert_sn_ok(sn_shape_def_compute_mass(world, &sd, 500.0, &mp));
	double m = 500.0 * 0.2 * 0.4 * 0.6;
	assert_near(mp.mass, m, 1e-12, "rho V, rounding");
	assert_near(mp.center_of_mass.x, 1.0, 1e-15, "the local pose's offset");
	// Turned about z, the box's x and y inertias swap: Ixx = m (hx^2 + hz^2) / 3 about the new x.
	assert_near(mp.inertia.cx.x, m * (0.01 + 0.09) / 3.0, 1e-12, "rotated tensor, rounding");
	assert_near(mp.inertia.cy.y, m * (0.04 + 0.09) / 3.0, 1e-12, "rotated tensor, rounding");
	// Two spheres of radius 0.1 at +-0.5 m on x, density 1000: total 2 m_s, inertia about y:
	// 2 (2/5 m_s r^2 + m_s 0.5^2).
	sn_body_id b = make_body(world, SN_BODY_DYNAMIC, sn_transform_identity());
	// Off-centre first, so that a shape that moved the centre of mass would show.
	assert_sn_ok(sn_body_set_mass_properties(world, b, 3.0, sn_mat33_diag(0.1, 0.2, 0.3), sn_v3(0.2, 0, 0)));
	make_shape(world, b, sn_geometry_sphere(0.1), at(0.5, 0, 0));
	make_shape(world, b, sn_geometry_sphere(0.1), at(-0.5, 0, 0));
	sn_shape_def sensor = sn_default_shape_def();
	sensor.body = b;
	sensor.geometry = sn_geometry_box(sn_v3(5, 5, 5));
	sensor.is_sensor = true; // weighs nothing
	sn_shape_id sid;
	assert_sn_ok(sn_create_shape(world, &sensor, &sid));
	// Shapes do not change a body's mass unless asked, not even after a step: the body keeps what it was
	// given, exactly.
	step(world, 1);
	assert_true(sn_body_get_mass(world, b) == 3.0);
	assert_true(sn_body_get_inertia(world, b).cx.x == 0.1 && sn_body_get_inertia(world, b).cz.z == 0.3);
	assert_true(sn_body_get_center_of_mass(world, b).x == 0.2);
	assert_sn_ok(sn_body_set_mass_from_shapes(world, b, 1000.0));
	double ms = 1000.0 * 4.0 / 3.0 * SN_PI * 0.001;
	assert_near(sn_body_get_mass(world, b), 2.0 * ms, 1e-12, "two spheres, rounding");
	assert_near(sn_body_get_inertia(world, b).cy.y, 2.0 * (0.4 * ms * 0.01 + ms * 0.25), 1e-12,
				"parallel-axis theorem, rounding");
	assert_near(sn_body_get_inertia(world, b).cx.x, 2.0 * 0.4 * ms * 0.01, 1e-12, "spheres on the x axis");
	assert_near(sn_length(sn_body_get_center_of_mass(world, b)), 0.0, 1e-15, "symmetric compound");
	// Errors: bad density, no solid shape, a link, a mesh def.
	assert_refused(world, sn_body_set_mass_from_shapes(world, b, -1.0), SN_ERR_NEGATIVE_VALUE);
	assert_refused(world, sn_body_set_mass_from_shapes(world, b, NAN), SN_ERR_NOT_FINITE);
	sn_body_id empty = make_body(world, SN_BODY_DYNAMIC, at(4, 0, 0));
	assert_refused(world, sn_body_set_mass_from_shapes(world, empty, 1000.0), SN_ERR_INVALID_ARGUMENT);
	sn_link_def link = sn_default_link_def();
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id art;
	assert_sn_ok(sn_create_articulation(world, &ad, &link, 1, &art));
	assert_refused(world, sn_body_set_mass_from_shapes(world, sn_articulation_get_link_body(world, art, 0), 1000.0),
				   SN_ERR_WRONG_TYPE);
	const sn_vec3 v[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
	const int32_t tri[3] = { 0, 1, 2 };
	sd.geometry = sn_geometry_mesh(v, 3, tri, 1);
	assert_refused(world, sn_shape_def_compute_mass(world, &sd, 1000.0, &mp), SN_ERR_UNSUPPORTED);
	sd.geometry = sn_geometry_sphere(-1.0);
	assert_refused(world, sn_shape_def_compute_mass(world, &sd, 1000.0, &mp), SN_ERR_NEGATIVE_VALUE);
	sn_world_destroy(world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_sizes),        cmocka_unit_test(test_bad_hulls_and_meshes),
		cmocka_unit_test(test_bad_def_fields),   cmocka_unit_test(test_getters_and_lists),
		cmocka_unit_test(test_mass_from_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
