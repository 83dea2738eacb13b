// The contact scenes of the scene library are built as shared/bench/contact-scenes.md defines them: what
// touches at the start touches (face contacts with zero separation where the file says the faces touch),
// the counts, the jitter, the chains' geometry and filtering. The collision stage reads them in one step;
// nothing here depends on a contact solver.
#include "world_support.h"

static sn_world* scene_world(double dt)
{
	sn_world_def wd = scene_world_def(SN_SOLVER_TGS, dt);
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	return world;
}

// Manifolds touching with every point at zero separation (within the rounding of the scene's poses).
static int count_resting(const sn_world* world, double tolerance)
{
	static sn_contact c[1024];
	int n = sn_world_get_contacts(world, c, 1024);
	assert_true(n <= 1024);
	int resting = 0;
	for (int i = 0; i < n; ++i)
	{
		bool all = c[i].point_count > 0;
		for (int k = 0; k < c[i].point_count; ++k)
		{
			all = all && fabs(c[i].points[k].separation) <= tolerance;
		}
		resting += all ? 1 : 0;
	}
	return resting;
}

static void test_c1_to_c5(void** state)
{
	(void)state;
	sn_world* w = scene_world(0.001);
	sn_body_id box;
	assert_sn_ok(scene_c1_resting_box(w, &box));
	step(w, 1);
	sn_contact c;
	assert_int_equal(sn_body_get_contacts(w, box, &c, 1), 1);
	assert_int_equal(c.point_count, 4);
	// One step of gravity has moved the box down by g dt^2 = 9.8 um: the points are that deep now (the
	// contact was measured at the start of the step, where it rested exactly).
	assert_near(deepest_point(&c), 0.0, 1e-15, "measured before the step moved it");
	assert_near(sn_body_get_mass(w, box), 1.0, 0.0, "1 kg");
	assert_near(sn_body_get_inertia(w, box).cx.x, 1.0 * 0.04 / 6.0, 1e-18, "m (2h)^2 / 6");
	sn_world_destroy(w);

	for (int k = 0; k < 2; ++k)
	{
		w = scene_world(0.001);
		assert_sn_ok(scene_c2_incline(w, k == 0 ? 0.7 : 0.3, &box));
		step(w, 1);
		assert_int_equal(sn_body_get_contacts(w, box, &c, 1), 1);
		assert_int_equal(c.point_count, 4);
		assert_near(deepest_point(&c), 0.0, 1e-15, "face down on the incline, rounding of the 30-degree pose");
		assert_near(c.normal.x, sin(SCENE_C2_ANGLE), 1e-15, "the incline's normal");
		sn_shape_id shapes[1];
		sn_body_get_shapes(w, box, shapes, 1);
		assert_near(sn_shape_get_material(w, shapes[0]).friction, k == 0 ? 0.7 : 0.3, 0.0, "the scene's friction");
		assert_near(sn_dot(scene_c2_downhill(), c.normal), 0.0, 1e-15, "downhill lies in the plane");
		sn_world_destroy(w);
	}

	w = scene_world(0.001);
	assert_sn_ok(scene_c3_bounce(w, 0.5, &box));
	step(w, 1);
	assert_int_equal(sn_world_get_contacts(w, NULL, 0), 0); // 1 m up
	sn_shape_id shapes[1];
	sn_body_get_shapes(w, box, shapes, 1);
	assert_near(sn_shape_get_material(w, shapes[0]).restitution, 0.5, 0.0, "e = 0.5");
	sn_world_destroy(w);

	w = scene_world(0.001);
	assert_sn_ok(scene_c4_rolling_sphere(w, &box));
	step(w, 1);
	assert_int_equal(sn_body_get_contacts(w, box, &c, 1), 1);
	assert_near(c.points[0].separation, 0.0, 1e-15, "touching, rounding of the 20-degree normal");
	assert_near(sn_body_get_inertia(w, box).cx.x, 0.4 * 0.01, 1e-18, "2/5 m r^2");
	sn_world_destroy(w);

	w = scene_world(1.0 / 240.0);
	sn_body_id boxes[SCENE_C5_BOXES];
	assert_sn_ok(scene_c5_stack(w, boxes));
	step(w, 1);
	// Nine box-on-box faces and the ground's, each 4 points at zero separation.
	assert_int_equal(sn_world_get_contacts(w, NULL, 0), SCENE_C5_BOXES);
	assert_int_equal(count_resting(w, 1e-15), SCENE_C5_BOXES);
	assert_int_equal(sn_world_get_collision_stats(w).points, 4 * SCENE_C5_BOXES);
	sn_world_destroy(w);
}

static void test_c6_pyramid(void** state)
{
	(void)state;
	sn_world* w = scene_world(1.0 / 240.0);
	static sn_body_id boxes[SCENE_C6_BOXES];
	assert_sn_ok(scene_c6_pyramid(w, boxes));
	assert_int_equal(sn_world_get_body_count(w), 210);
	sn_vec3 top = sn_body_get_pose(w, boxes[SCENE_C6_BOXES - 1]).p;
	assert_near(top.z, 0.1 + 0.2 * 19, 1e-15, "row 19");
	assert_near(top.x, 0.0, 0.0, "the top box is centred");
	step(w, 1);
	// Faces that touch: 20 on the ground, 190 side by side in the rows, two under each of the 190 boxes
	// above the first row: 590 manifolds, all at zero separation.
	assert_int_equal(sn_world_get_contacts(w, NULL, 0), 20 + 190 + 380);
	assert_int_equal(count_resting(w, 1e-14), 590); // rounding of centres like 0.1 + 0.2 k
	sn_world_destroy(w);
}

static void test_c7_spheres(void** state)
{
	(void)state;
	// The jitter: within 5 mm, and the file's formula for one index computed by hand:
	// idx 0, salt 1: h = 40503; h ^= h >> 15 (1) -> 40502; h *= 2246822519 (mod 2^32); h ^= h >> 13.
	uint32_t h = 40503u;
	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	assert_near(scene_c7_jitter(0, 1), 0.01 * ((double)(h % 10001u) / 10000.0 - 0.5), 0.0, "the same formula");
	for (uint32_t i = 0; i < 1000; ++i)
	{
		assert_true(fabs(scene_c7_jitter(i, 1)) <= 0.005 && fabs(scene_c7_jitter(i, 2)) <= 0.005);
	}
	sn_world* w = scene_world(1.0 / 240.0);
	static sn_body_id spheres[SCENE_C7_SPHERES];
	assert_sn_ok(scene_c7_spheres(w, spheres));
	assert_int_equal(sn_world_get_shape_count(w), 1000 + 1 + 4);
	sn_vec3 p = sn_body_get_pose(w, spheres[100 * 3 + 10 * 7 + 2]).p;
	assert_near(p.x, (2 - 4.5) * 0.12 + scene_c7_jitter(372, 1), 1e-15, "grid and jitter");
	assert_near(p.z, 0.30 + 0.12 * 3, 1e-15, "layer 3");
	// The walls' inner faces: a ray from the centre along +x meets the first at 0.75 (sensors none).
	sn_ray_hit hit;
	bool found;
	sn_query_filter f = sn_default_query_filter();
	assert_sn_ok(sn_world_ray_cast_closest(w, sn_v3(0, 0, 0.05), sn_v3(2, 0, 0), &f, &hit, &found));
	assert_true(found);
	assert_near(hit.point.x, SCENE_C7_INNER, 1e-12, "wall's inner face");
	// Corners closed: a ray along the diagonal meets a wall before leaving the box.
	assert_sn_ok(sn_world_ray_cast_closest(w, sn_v3(0, 0, 0.05), sn_v3(2, 2, 0), &f, &hit, &found));
	assert_true(found && fabs(hit.point.x) <= 0.85 + 1e-12);
	sn_world_destroy(w);
}

// C8 as articulations and as maximal bodies: the same link poses; adjacent links never pair; links two
// apart along a chain do pair (their boxes are near), in both.
static void test_c8_chains(void** state)
{
	(void)state;
	sn_world* a = scene_world(0.001);
	sn_world* m = scene_world(0.001);
	static sn_articulation_id chains[SCENE_C8_CHAINS];
	static sn_body_id bodies[SCENE_C8_CHAINS * SCENE_C8_LINKS];
	static sn_joint_id joints[SCENE_C8_CHAINS * (SCENE_C8_LINKS - 1)];
	assert_sn_ok(scene_c8_chains_articulated(a, chains));
	assert_sn_ok(scene_c8_chains_maximal(m, bodies, joints));
	for (int c = 0; c < SCENE_C8_CHAINS; c += 37)
	{
		for (int l = 0; l < SCENE_C8_LINKS; ++l)
		{
			sn_transform pa = sn_body_get_pose(a, sn_articulation_get_link_body(a, chains[c], l));
			sn_transform pm = sn_body_get_pose(m, bodies[SCENE_C8_LINKS * c + l]);
			assert_near(sn_length(sn_sub(pa.p, pm.p)), 0.0, 1e-14,
						"link centres, rounding of the joint frames at coordinates up to 6 m (1e-15 relative)");
			assert_near(pm.p.z, 0.5, 0.0, "lying at z = 0.5");
			assert_near(sn_body_get_mass(a, sn_articulation_get_link_body(a, chains[c], l)), SCENE_C8_LINK_MASS, 0.0,
						"0.1 kg");
		}
	}
	// The capsule's axis lies along x: 0.14 m long overall.
	sn_shape_id s[1];
	sn_body_get_shapes(m, bodies[0], s, 1);
	sn_vec3 lo, hi;
	assert_sn_ok(sn_shape_get_bounds(m, s[0], &lo, &hi));
	assert_near(hi.x - lo.x, 0.14, 1e-15, "capsule length 2 h + 2 r");
	step(a, 1);
	step(m, 1);
	// Within a chain: 8 pairs of links two apart (none adjacent), in both worlds.
	sn_collision_stats sa = sn_world_get_collision_stats(a), sm = sn_world_get_collision_stats(m);
	assert_int_equal(sa.pairs, 8 * SCENE_C8_CHAINS);
	assert_int_equal(sm.pairs, 8 * SCENE_C8_CHAINS);
	assert_int_equal(sa.points + sm.points, 0); // two apart: 0.06 m between the capsules' ends
	sn_world_destroy(a);
	sn_world_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c1_to_c5),
		cmocka_unit_test(test_c6_pyramid),
		cmocka_unit_test(test_c7_spheres),
		cmocka_unit_test(test_c8_chains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
