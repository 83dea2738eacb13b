// The step's collision stage through the world API: manifolds of resting boxes (4 points at the corners,
// 2 on an edge), feature ids and warm starts that persist while a box slides, the speculative contact a
// fast sphere gets before it would pass a thin box, begin and end events, sensors, meshes and links.
//
// There are no contact forces yet (the contact dynamics issue adds them), so bodies that must stay put
// live in worlds without gravity, and bodies that must move are dynamic bodies moved by their velocity
// (a pair needs a dynamic side: kinematic and static bodies do not collide with each other).
#include "world_support.h"

// The world internals, to write warm-start impulses as the contact solver will.
#include "world.h"

static const sn_body_id world_body = { 0, 0 };

// A contact point at one of these positions, each used once.
static void assert_points_at(const sn_contact* c, const sn_vec3* expected, int count, double tolerance,
							 const char* reason)
{
	assert_int_equal(c->point_count, count);
	bool used[SN_MANIFOLD_MAX_POINTS] = { false, false, false, false };
	for (int e = 0; e < count; ++e)
	{
		int found = -1;
		for (int k = 0; k < c->point_count; ++k)
		{
			if (!used[k] && sn_length(sn_sub(c->points[k].position, expected[e])) <= tolerance)
			{
				found = k;
				break;
			}
		}
		if (found < 0)
		{
			fail_msg("no contact point at (%g, %g, %g) within %g (%s)", expected[e].x, expected[e].y, expected[e].z,
					 tolerance, reason);
		}
		used[found] = true;
	}
}

static void test_box_on_plane_four_corners(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	sn_shape_id ground = make_ground(world);
	sn_shape_id box_shape;
	sn_body_id box = box_body(world, SN_BODY_DYNAMIC, at(0, 0, 0.1), sn_v3(0.1, 0.1, 0.1), &box_shape);
	step(world, 1);
	contact_list l;
	read_contacts(world, &l);
	assert_int_equal(l.count, 1);
	const sn_contact* c = l.items;
	assert_true(sn_shape_id_equals(c->shape_a, ground) && sn_shape_id_equals(c->shape_b, box_shape));
	assert_true(sn_body_id_is_null(c->body_a) && sn_body_id_equals(c->body_b, box));
	assert_near(c->normal.z, 1.0, 1e-15, "the plane's normal, from the plane (A) to the box (B)");
	const sn_vec3 corners[4] = { { -0.1, -0.1, 0 }, { 0.1, -0.1, 0 }, { 0.1, 0.1, 0 }, { -0.1, 0.1, 0 } };
	assert_points_at(c, corners, 4, 1e-15, "the closed form places an axis-aligned box's corners exactly");
	for (int k = 0; k < 4; ++k)
	{
		assert_near(c->points[k].separation, 0.0, 1e-15, "resting exactly on the plane");
	}
	assert_true(c->touching);
	sn_collision_stats st = sn_world_get_collision_stats(world);
	assert_int_equal(st.proxies, 1); // the plane stays out of the trees
	assert_int_equal(st.pairs, 1);
	assert_int_equal(st.points, 4);
	// The same through the body's and the shape's readback.
	sn_contact one;
	assert_int_equal(sn_body_get_contacts(world, box, &one, 1), 1);
	assert_int_equal(sn_shape_get_contacts(world, ground, &one, 1), 1);
	assert_int_equal(pair_contacts(world, box_shape, ground, NULL), 1);
	sn_world_destroy(world);
}

static void test_box_on_box_and_on_edge(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	// Box on box, offset by (0.05, 0.02): the manifold is the overlap of the two faces, its corners.
	sn_shape_id lower, upper;
	box_body(world, SN_BODY_STATIC, at(0, 0, 0.1), sn_v3(0.1, 0.1, 0.1), &lower);
	box_body(world, SN_BODY_DYNAMIC, at(0.05, 0.02, 0.3), sn_v3(0.1, 0.1, 0.1), &upper);
	// A box on its edge on a second, far plane: turned 45 degrees about y, its edge along y touches.
	sn_shape_id floor = make_shape(world, world_body, sn_geometry_plane(sn_v3(0, 0, 1), -5.0), sn_transform_identity());
	sn_shape_id edge;
	box_body(world, SN_BODY_DYNAMIC,
			 posed(sn_v3(3, 0, -5.0 + 0.1 * sqrt(2.0)), sn_quat_from_axis_angle(sn_v3(0, 1, 0), 0.25 * SN_PI)),
			 sn_v3(0.1, 0.1, 0.1), &edge);
	step(world, 1);
	sn_contact c[SN_MAX_MANIFOLDS];
	assert_int_equal(pair_contacts(world, lower, upper, c), 1);
	const sn_vec3 overlap[4] = { { -0.05, -0.08, 0.2 }, { 0.1, -0.08, 0.2 }, { 0.1, 0.1, 0.2 }, { -0.05, 0.1, 0.2 } };
	assert_points_at(c, overlap, 4, 1e-12, "box-box clipping, rounding of the face transforms");
	for (int k = 0; k < 4; ++k)
	{
		assert_near(c->points[k].separation, 0.0, 1e-12, "face on face, rounding");
	}
	// Apart by 5 mm face over face (a speculative face contact: the four corners at the gap), and
	// corner to corner diagonally (the closest features are edges: one point at the true distance).
	sn_shape_id over, low2, diag;
	box_body(world, SN_BODY_STATIC, at(10, 0, 0.1), sn_v3(0.1, 0.1, 0.1), &low2);
	box_body(world, SN_BODY_DYNAMIC, at(10.03, -0.02, 0.305), sn_v3(0.1, 0.1, 0.1), &over);
	box_body(world, SN_BODY_DYNAMIC, at(10.205, 0.205, 0.1), sn_v3(0.1, 0.1, 0.1), &diag);
	step(world, 1);
	assert_int_equal(pair_contacts(world, low2, over, c), 1);
	assert_int_equal(c->point_count, 4);
	for (int k = 0; k < 4; ++k)
	{
		assert_near(c->points[k].separation, 0.005, 1e-15, "face over face: the gap, rounding");
	}
	assert_int_equal(pair_contacts(world, low2, diag, c), 1);
	assert_int_equal(c->point_count, 1);
	assert_near(c->points[0].separation, 0.005 * sqrt(2.0), 1e-12, "edge to edge across the diagonal gap");
	assert_int_equal(pair_contacts(world, floor, edge, c), 1);
	const sn_vec3 ends[2] = { { 3, -0.1, -5 }, { 3, 0.1, -5 } };
	assert_points_at(c, ends, 2, 1e-12, "the edge's two ends, rounding of the 45-degree rotation");
	assert_near(deepest_point(c), 0.0, 1e-12, "the edge rests on the plane");
	sn_world_destroy(world);
}

// A box sliding slowly on a plane (1 cm/s, moved by its velocity in a world without gravity: no weight, so no friction):
// the same four feature ids for 100 steps, persisted from the second step on. (The warm starts that follow
// the ids are the contact solver's: tests/core/test_contacts.c.)
static void test_feature_ids_persist_while_sliding(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	make_ground(world);
	sn_body_id box = box_body(world, SN_BODY_DYNAMIC, at(0, 0, 0.1), sn_v3(0.1, 0.1, 0.1), NULL);
	uint64_t first[4];
	for (int s = 0; s < 100; ++s)
	{
		assert_sn_ok(sn_body_set_linear_velocity(world, box, sn_v3(0.01, 0.003, 0)));
		step(world, 1);
		sn_contact c;
		assert_int_equal(sn_body_get_contacts(world, box, &c, 1), 1);
		assert_int_equal(c.point_count, 4);
		for (int k = 0; k < 4; ++k)
		{
			if (s == 0)
			{
				first[k] = c.points[k].feature_id;
				assert_false(c.points[k].persisted);
				continue;
			}
			assert_true(c.points[k].persisted);
			int match = -1;
			for (int j = 0; j < 4; ++j)
			{
				match = first[j] == c.points[k].feature_id ? j : match;
			}
			if (match < 0)
			{
				fail_msg("step %d: feature id %llx is new", s, (unsigned long long)c.points[k].feature_id);
			}
		}
	}
	assert_near(sn_body_get_pose(world, box).p.x, 0.001, 1e-15, "slid 1 mm (100 steps of 1 ms at 1 cm/s), rounding");
	sn_world_destroy(world);
}

// A 0.05 m sphere (radius 0.05 m, and diameter 0.05 m: the words allow both) at 20 m/s towards a
// 0.01 m static box (dt 1 ms, and dt 1/60 s where one step would carry it through): a speculative contact
// with the gap as its separation appears before it reaches the box, is there the step before it would
// pass, and the contact solver stops the sphere at the box's face (an inelastic impact: no restitution)
// instead of letting it tunnel.
static void test_fast_sphere_speculative(void** state)
{
	(void)state;
	const double dts[2] = { 0.001, 1.0 / 60.0 };
	for (int run = 0; run < 4; ++run)
	{
		int d = run % 2;
		double dt = dts[d], speed = 20.0, r = run < 2 ? 0.05 : 0.025, half = 0.005;
		sn_world* world = make_world(dt, sn_v3(0, 0, 0));
		sn_shape_id wall = make_shape(world, world_body, sn_geometry_box(sn_v3(half, 0.5, 0.5)), at(0, 0, 0));
		sn_body_def bd = sn_default_body_def();
		// At 1/60 s it starts where its steps jump clean over the wall (x = -0.233 to 0.1).
		bd.pose.p = sn_v3(d == 0 ? -1.0 : -0.9, 0, 0);
		bd.linear_velocity = sn_v3(speed, 0, 0);
		sn_body_id ball;
		assert_sn_ok(sn_create_body(world, &bd, &ball));
		sn_shape_id ball_shape = make_shape(world, ball, sn_geometry_sphere(r), sn_transform_identity());
		double margin = SN_SPECULATIVE_DISTANCE + dt * speed; // the sphere's speed bound: no spin
		int first_contact = -1, last_before_pass = -1, ahead = -1;
		for (int s = 0; s < 200; ++s)
		{
			double x = sn_body_get_pose(world, ball).p.x;
			double gap = -half - (x + r); // to the wall's near face, at the start of the step
			step(world, 1);
			sn_contact c;
			int n = pair_contacts(world, wall, ball_shape, &c);
			if (gap >= margin)
			{
				assert_int_equal(n, 0);
				continue;
			}
			if (gap <= SN_CONTACT_TOUCH_DISTANCE)
			{
				break; // arrived
			}
			// Within the margin and still apart: a speculative point with the gap as its separation, its
			// normal from the wall (A) to the sphere (B), along -x.
			assert_int_equal(n, 1);
			assert_int_equal(c.point_count, 1);
			assert_near(c.points[0].separation, gap, 1e-12, "closed form sphere-box, rounding of the pose");
			assert_near(c.normal.x, -1.0, 1e-12, "the near face's normal");
			first_contact = first_contact < 0 ? s : first_contact;
			if (gap < speed * dt)
			{
				ahead = s; // this step would close the gap: its point is there a step ahead of the overlap
			}
			if (x + speed * dt - r > half)
			{
				last_before_pass = s; // the next step would carry it past the wall
			}
		}
		report_measure(d == 0 ? "first speculative step at 1 ms" : "first speculative step at 1/60 s", first_contact);
		report_measure("(radius, m)", r);
		assert_true(first_contact >= 0);
		assert_true(ahead >= 0);
		if (d == 1)
		{
			assert_true(last_before_pass >= 0); // at 1/60 s it would pass in one step: seen the step before
		}
		// Stopped at the face: the speculative row let it close the gap and no more (rounding of the
		// separations, 1e-12 m), and its speed is gone (restitution 0).
		step(world, 10);
		double x = sn_body_get_pose(world, ball).p.x;
		report_measure(d == 0 ? "sphere's surface past the face at 1 ms (m)" : "past the face at 1/60 s (m)",
					   x + r + half);
		assert_true(x + r <= -half + 1e-9);
		assert_near(sn_body_get_linear_velocity(world, ball).x, 0.0, 1e-9, "inelastic stop, rounding");
		sn_world_destroy(world);
	}
}

// Begin and end events: a box moved down onto the ground at 1 m/s and back up; then one destroyed while
// touching.
static void test_begin_end_events(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	sn_shape_id ground = make_ground(world);
	sn_shape_id box_shape;
	sn_body_id box = box_body(world, SN_BODY_DYNAMIC, at(0, 0, 0.1105), sn_v3(0.1, 0.1, 0.1), &box_shape);
	assert_sn_ok(sn_body_set_linear_velocity(world, box, sn_v3(0, 0, -1.0)));
	int begins = 0, ends = 0, begin_step = -1, end_step = -1;
	for (int s = 0; s < 40; ++s)
	{
		double gap = sn_body_get_pose(world, box).p.z - 0.1;
		if (s == 20)
		{
			assert_sn_ok(sn_body_set_linear_velocity(world, box, sn_v3(0, 0, 1.0)));
		}
		step(world, 1);
		sn_contact_events e = sn_world_get_contact_events(world);
		if (e.begin_count > 0)
		{
			assert_int_equal(e.begin_count, 1);
			assert_true(sn_shape_id_equals(e.begin[0].shape_a, ground) &&
						sn_shape_id_equals(e.begin[0].shape_b, box_shape));
			assert_true(sn_body_id_equals(e.begin[0].body_b, box));
			assert_true(gap <= SN_CONTACT_TOUCH_DISTANCE + 1e-12);
			begins += 1;
			begin_step = s;
		}
		if (e.end_count > 0)
		{
			assert_int_equal(e.end_count, 1);
			assert_true(gap > SN_CONTACT_TOUCH_DISTANCE - 1e-12);
			ends += 1;
			end_step = s;
		}
		assert_int_equal(e.dropped, 0);
	}
	assert_int_equal(begins, 1);
	assert_int_equal(ends, 1);
	report_measure("begin step", begin_step);
	report_measure("end step", end_step);
	// Touching again, then the box's box_shape destroyed: the next step ends the pair with the old ids.
	assert_sn_ok(sn_body_set_pose(world, box, at(0, 0, 0.1)));
	assert_sn_ok(sn_body_set_linear_velocity(world, box, sn_v3(0, 0, 0)));
	step(world, 1);
	assert_int_equal(sn_world_get_contact_events(world).begin_count, 1);
	assert_sn_ok(sn_destroy_shape(world, box_shape));
	assert_int_equal(sn_world_get_contacts(world, NULL, 0), 0); // readback skips the gone box_shape at once
	step(world, 1);
	sn_contact_events e = sn_world_get_contact_events(world);
	assert_int_equal(e.end_count, 1);
	assert_true(sn_shape_id_equals(e.end[0].shape_b, box_shape));
	assert_int_equal(sn_world_get_collision_stats(world).pairs, 0);
	sn_world_destroy(world);
}

// A sensor reports overlaps and no contact points; two sensors never pair.
static void test_sensors(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	sn_shape_def sd = sn_default_shape_def();
	sd.geometry = sn_geometry_box(sn_v3(0.5, 0.5, 0.5));
	sd.is_sensor = true;
	sn_shape_id sensor;
	assert_sn_ok(sn_create_shape(world, &sd, &sensor)); // a trigger volume of the world
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = sn_v3(-1.0, 0, 0);
	bd.linear_velocity = sn_v3(10.0, 0, 0);
	sn_body_id ball;
	assert_sn_ok(sn_create_body(world, &bd, &ball));
	sn_shape_id ball_shape = make_shape(world, ball, sn_geometry_sphere(0.1), sn_transform_identity());
	// A dynamic sensor riding on a second ball: sensor against sensor never pairs.
	sd.body = ball;
	sd.geometry = sn_geometry_sphere(0.2);
	sn_shape_id riding;
	assert_sn_ok(sn_create_shape(world, &sd, &riding));
	int begins = 0, ends = 0;
	for (int s = 0; s < 250; ++s)
	{
		double x = sn_body_get_pose(world, ball).p.x;
		step(world, 1);
		sn_contact_events e = sn_world_get_contact_events(world);
		assert_int_equal(e.begin_count + e.end_count, 0); // no contact events from a sensor
		assert_int_equal(sn_world_get_contacts(world, NULL, 0), 0);
		for (int k = 0; k < e.sensor_begin_count; ++k)
		{
			assert_true(sn_shape_id_equals(e.sensor_begin[k].sensor, sensor));
			assert_true(sn_shape_id_equals(e.sensor_begin[k].visitor, ball_shape));
			assert_true(sn_body_id_equals(e.sensor_begin[k].visitor_body, ball));
			assert_true(x + 0.1 >= -0.5 - 1e-9); // the ball reached the box
			begins += 1;
		}
		for (int k = 0; k < e.sensor_end_count; ++k)
		{
			assert_true(x - 0.1 > 0.5 - 1e-9);
			ends += 1;
		}
	}
	assert_int_equal(begins, 1);
	assert_int_equal(ends, 1);
	(void)riding;
	sn_world_destroy(world);
}

// Static geometry of every kind holds a box: a two-triangle mesh floor gives one face manifold of 4
// points; a link's shape on the ground names the link's body.
static void test_mesh_floor_and_link(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	const sn_vec3 v[4] = { { -2, -2, 0 }, { 2, -2, 0 }, { 2, 2, 0 }, { -2, 2, 0 } };
	const int32_t idx[6] = { 0, 1, 2, 0, 2, 3 };
	sn_shape_id floor = make_shape(world, world_body, sn_geometry_mesh(v, 4, idx, 2), sn_transform_identity());
	sn_shape_id box;
	box_body(world, SN_BODY_DYNAMIC, at(0.3, 0.2, 0.1), sn_v3(0.1, 0.1, 0.1), &box);
	// A fixed-base arm whose second link hangs a capsule down onto the floor at x = 1.
	sn_link_def links[2] = { sn_default_link_def(), sn_default_link_def() };
	links[1].parent = 0;
	links[1].parent_frame.p = sn_v3(1.0, 0, 0.3);
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id arm;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 2, &arm));
	sn_body_id link1 = sn_articulation_get_link_body(world, arm, 1);
	sn_shape_id capsule = make_shape(world, link1, sn_geometry_capsule(0.05, 0.1), at(0, 0, -0.15));
	step(world, 1);
	sn_contact c[SN_MAX_MANIFOLDS];
	assert_int_equal(pair_contacts(world, floor, box, c), 1);
	assert_int_equal(c[0].point_count, 4);
	assert_near(deepest_point(c), 0.0, 1e-12, "resting on the mesh, rounding");
	assert_int_equal(pair_contacts(world, floor, capsule, c), 1);
	assert_true(sn_body_id_equals(c[0].body_b, link1));
	assert_near(deepest_point(c), 0.0, 1e-12, "the capsule's bottom at z = 0.3 - 0.15 - 0.1 - 0.05 = 0");
	sn_contact by_body;
	assert_int_equal(sn_body_get_contacts(world, link1, &by_body, 1), 1);
	sn_world_destroy(world);
}

// Heaped shapes cannot grow the pair cache without bound: past the world's pair bound (lowered here from
// SN_MAX_CONTACT_PAIRS) new pairs are counted, not made; the ones kept are the first by shape slots.
static void test_pair_bound(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	world->contacts.max_pairs = 10;
	world->contacts.bp.max_pairs = 10;
	for (int i = 0; i < 20; ++i)
	{
		sn_body_id b = make_body(world, SN_BODY_DYNAMIC, at(0.001 * i, 0, 0));
		make_shape(world, b, sn_geometry_sphere(0.1), sn_transform_identity());
	}
	step(world, 3);
	sn_collision_stats st = sn_world_get_collision_stats(world);
	assert_int_equal(st.pairs, 10);
	assert_int_equal(st.manifolds, 10);
	assert_true(st.pairs_dropped >= 190 - 10); // of the 190 pairs of 20 overlapping spheres
	sn_contact c;
	assert_int_equal(sn_world_get_contacts(world, &c, 1), 10);
	assert_int_equal(c.shape_a.index1, 1); // the first slots' pairs
	sn_world_destroy(world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_box_on_plane_four_corners),
		cmocka_unit_test(test_box_on_box_and_on_edge),
		cmocka_unit_test(test_feature_ids_persist_while_sliding),
		cmocka_unit_test(test_fast_sphere_speculative),
		cmocka_unit_test(test_begin_end_events),
		cmocka_unit_test(test_sensors),
		cmocka_unit_test(test_mesh_floor_and_link),
		cmocka_unit_test(test_pair_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
