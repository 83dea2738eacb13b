// Filtering, rule by rule: categories and masks (both ways), one body's shapes, static and kinematic
// pairs, an articulation's links (adjacent never; the others only with self-collision, off by default),
// maximal joints (collide_connected), explicit exclusions (bodies, links, the world), sensors. Each rule
// is checked both ways: the pair that the rule refuses has no contacts, the same pair without the rule
// has them, and changing the rule at run time takes effect in the next step.
#include "world_support.h"

static const sn_body_id world_body = { 0, 0 };

static bool touching(const sn_world* world, sn_shape_id a, sn_shape_id b)
{
	sn_contact c[SN_MAX_MANIFOLDS];
	int n = pair_contacts(world, a, b, c);
	return n > 0 && c[0].touching;
}

static void test_category_and_mask(void** state)
{
	(void)state;
	for (int k = 0; k < 4; ++k)
	{
		sn_world* world = zero_g_world();
		sn_shape_id a, b;
		box_body(world, SN_BODY_DYNAMIC, at(0, 0, 0), sn_v3(0.1, 0.1, 0.1), &a);
		box_body(world, SN_BODY_DYNAMIC, at(0.15, 0, 0), sn_v3(0.1, 0.1, 0.1), &b);
		// k = 0: defaults; 1: a's mask leaves out b's category; 2: b's mask leaves out a's; 3: both admit.
		sn_filter fa = { 1u << 1, UINT64_MAX }, fb = { 1u << 2, UINT64_MAX };
		if (k == 1)
		{
			fa.mask = ~(uint64_t)(1u << 2);
		}
		if (k == 2)
		{
			fb.mask = ~(uint64_t)(1u << 1);
		}
		if (k > 0)
		{
			assert_sn_ok(sn_shape_set_filter(world, a, fa));
			assert_sn_ok(sn_shape_set_filter(world, b, fb));
		}
		step(world, 1);
		assert_true(touching(world, a, b) == (k == 0 || k == 3));
		if (k == 1)
		{
			// Let it through at run time: the pair begins in the next step.
			fa.mask = UINT64_MAX;
			assert_sn_ok(sn_shape_set_filter(world, a, fa));
			step(world, 1);
			assert_true(touching(world, a, b));
			assert_int_equal(sn_world_get_contact_events(world).begin_count, 1);
			// And shut it out again: it ends in the next step, with its end event.
			fa.mask = 0;
			assert_sn_ok(sn_shape_set_filter(world, a, fa));
			step(world, 1);
			assert_false(touching(world, a, b));
			assert_int_equal(sn_world_get_contact_events(world).end_count, 1);
		}
		sn_world_destroy(world);
	}
}

static void test_body_rules(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	// Two overlapping shapes on one body; two overlapping static bodies; a kinematic body overlapping a
	// static one and another kinematic one: none of these pairs.
	sn_body_id one = make_body(world, SN_BODY_DYNAMIC, at(0, 0, 0));
	sn_shape_id s1 = make_shape(world, one, sn_geometry_sphere(0.1), at(0, 0, 0));
	sn_shape_id s2 = make_shape(world, one, sn_geometry_sphere(0.1), at(0.05, 0, 0));
	sn_shape_id st1, st2, k1, k2;
	box_body(world, SN_BODY_STATIC, at(5, 0, 0), sn_v3(0.1, 0.1, 0.1), &st1);
	box_body(world, SN_BODY_STATIC, at(5.1, 0, 0), sn_v3(0.1, 0.1, 0.1), &st2);
	sn_body_id kb = box_body(world, SN_BODY_KINEMATIC, at(5.05, 0.1, 0), sn_v3(0.1, 0.1, 0.1), &k1);
	box_body(world, SN_BODY_KINEMATIC, at(5.05, 0.15, 0), sn_v3(0.1, 0.1, 0.1), &k2);
	step(world, 2);
	assert_false(touching(world, s1, s2));
	assert_false(touching(world, st1, st2));
	assert_false(touching(world, st1, k1));
	assert_false(touching(world, k1, k2));
	assert_int_equal(sn_world_get_collision_stats(world).pairs, 0);
	// The kinematic body made dynamic now pairs with all three.
	assert_sn_ok(
		sn_body_set_mass_properties(world, kb, 1.0, sn_inertia_box(1.0, sn_v3(0.1, 0.1, 0.1)), sn_v3(0, 0, 0)));
	assert_sn_ok(sn_body_set_type(world, kb, SN_BODY_DYNAMIC));
	step(world, 1);
	assert_true(touching(world, st1, k1) && touching(world, st2, k1) && touching(world, k1, k2));
	// And made static again: its pairs end.
	assert_sn_ok(sn_body_set_type(world, kb, SN_BODY_STATIC));
	step(world, 1);
	assert_int_equal(sn_world_get_collision_stats(world).pairs, 0);
	assert_int_equal(sn_world_get_contact_events(world).end_count, 3);
	sn_world_destroy(world);
}

// A chain of four links lying along x, each a box overlapping its neighbours (and link 0 overlapping
// link 2 through a long box): adjacent links never collide; others only with self-collision on.
static sn_articulation_id overlapping_chain(sn_world* world, bool self_collision, sn_shape_id shapes[4])
{
	sn_link_def links[4];
	for (int l = 0; l < 4; ++l)
	{
		links[l] = sn_default_link_def();
		if (l > 0)
		{
			links[l].parent = l - 1;
			links[l].parent_frame.p = sn_v3(0.1, 0, 0);
			links[l].parent_frame.q = scene_x_to_y();
			links[l].child_frame.q = scene_x_to_y();
		}
	}
	sn_articulation_def ad = sn_default_articulation_def();
	ad.self_collision = self_collision;
	sn_articulation_id art;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 4, &art));
	assert_true(sn_articulation_get_self_collision(world, art) == self_collision);
	for (int l = 0; l < 4; ++l)
	{
		// Link 0 reaches 0.25 m along x: into link 2 (at x = 0.2); the others 0.07 m each way.
		double half = l == 0 ? 0.125 : 0.07;
		shapes[l] = make_shape(world, sn_articulation_get_link_body(world, art, l),
							   sn_geometry_box(sn_v3(half, 0.03, 0.03)), at(l == 0 ? 0.125 : 0.0, 0, 0));
	}
	return art;
}

static void test_articulation_rules(void** state)
{
	(void)state;
	for (int on = 0; on < 2; ++on)
	{
		sn_world* world = zero_g_world();
		sn_shape_id s[4];
		sn_articulation_id art = overlapping_chain(world, on == 1, s);
		step(world, 1);
		// Adjacent: never, either way.
		assert_false(touching(world, s[0], s[1]));
		assert_false(touching(world, s[1], s[2]));
		assert_false(touching(world, s[2], s[3]));
		// Non-adjacent and overlapping (link 0's long box into link 2): only with self-collision.
		assert_true(touching(world, s[0], s[2]) == (on == 1));
		// Switched at run time.
		assert_sn_ok(sn_articulation_set_self_collision(world, art, on == 0));
		step(world, 1);
		assert_true(touching(world, s[0], s[2]) == (on == 0));
		assert_false(touching(world, s[0], s[1]));
		sn_world_destroy(world);
	}
	// The default def has self-collision off.
	assert_false(sn_default_articulation_def().self_collision);
	// Two articulations' links collide with each other by default.
	sn_world* world = zero_g_world();
	sn_shape_id a[4], b[4];
	overlapping_chain(world, false, a);
	overlapping_chain(world, false, b); // the same place: every link overlaps its twin
	step(world, 1);
	for (int l = 0; l < 4; ++l)
	{
		assert_true(touching(world, a[l], b[l]));
	}
	sn_world_destroy(world);
}

static void test_joint_rules(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	sn_shape_id sa, sb, sc;
	sn_body_id a = box_body(world, SN_BODY_DYNAMIC, at(0, 0, 0), sn_v3(0.1, 0.1, 0.1), &sa);
	sn_body_id b = box_body(world, SN_BODY_DYNAMIC, at(0.15, 0, 0), sn_v3(0.1, 0.1, 0.1), &sb);
	sn_body_id c = box_body(world, SN_BODY_DYNAMIC, at(0.3, 0, 0), sn_v3(0.1, 0.1, 0.1), &sc);
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	assert_false(hd.base.collide_connected);
	hd.base.body_a = a;
	hd.base.body_b = b;
	hd.base.frame_a.p = sn_v3(0.075, 0, 0);
	hd.base.frame_b.p = sn_v3(-0.075, 0, 0);
	sn_joint_id ab;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &ab));
	hd.base.body_a = b;
	hd.base.body_b = c;
	hd.base.collide_connected = true;
	sn_joint_id bc;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &bc));
	step(world, 1);
	assert_false(touching(world, sa, sb)); // jointed
	assert_true(touching(world, sb, sc));  // jointed, collide_connected
	// Turned around at run time.
	assert_sn_ok(sn_joint_set_collide_connected(world, ab, true));
	assert_sn_ok(sn_joint_set_collide_connected(world, bc, false));
	step(world, 1);
	assert_true(touching(world, sa, sb));
	assert_false(touching(world, sb, sc));
	// Destroying the joint lets the bodies collide.
	assert_sn_ok(sn_destroy_joint(world, bc));
	step(world, 1);
	assert_true(touching(world, sb, sc));
	// A joint to the world does not turn off collisions with the world's shapes.
	sn_shape_id ground =
		make_shape(world, world_body, sn_geometry_plane(sn_v3(0, 0, 1), -0.1), sn_transform_identity());
	hd.base.body_a = world_body;
	hd.base.body_b = a;
	hd.base.collide_connected = false;
	hd.base.frame_a.p = sn_v3(-0.075, 0, 0);
	hd.base.frame_b.p = sn_v3(-0.075, 0, 0);
	sn_joint_id wa;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &wa));
	step(world, 1);
	assert_true(touching(world, ground, sa));
	sn_world_destroy(world);
}

static void test_explicit_exclusion(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	sn_shape_id ground = make_ground(world);
	sn_shape_id sa, sb;
	sn_body_id a = box_body(world, SN_BODY_DYNAMIC, at(0, 0, 0.1), sn_v3(0.1, 0.1, 0.1), &sa);
	sn_body_id b = box_body(world, SN_BODY_DYNAMIC, at(0.15, 0, 0.1), sn_v3(0.1, 0.1, 0.1), &sb);
	// A link overlapping box b.
	sn_link_def link = sn_default_link_def();
	sn_articulation_def ad = sn_default_articulation_def();
	ad.base_pose.p = sn_v3(0.3, 0, 0.1);
	sn_articulation_id art;
	assert_sn_ok(sn_create_articulation(world, &ad, &link, 1, &art));
	sn_body_id lb = sn_articulation_get_link_body(world, art, 0);
	sn_shape_id sl = make_shape(world, lb, sn_geometry_box(sn_v3(0.1, 0.1, 0.1)), sn_transform_identity());
	step(world, 1);
	assert_true(touching(world, sa, sb) && touching(world, sb, sl) && touching(world, ground, sa));
	assert_true(sn_world_get_pair_collision(world, a, b));
	assert_sn_ok(sn_world_set_pair_collision(world, a, b, false));
	assert_sn_ok(sn_world_set_pair_collision(world, b, lb, false));
	assert_sn_ok(sn_world_set_pair_collision(world, world_body, a, false)); // the world's shapes too
	assert_false(sn_world_get_pair_collision(world, b, a));
	step(world, 1);
	assert_false(touching(world, sa, sb) || touching(world, sb, sl) || touching(world, ground, sa));
	assert_true(touching(world, ground, sb)); // untouched rules still hold
	// Bad input: an invalid id, a body with itself; then lifted.
	assert_refused(world, sn_world_set_pair_collision(world, a, (sn_body_id){ 999, 1 }, false), SN_ERR_INVALID_ID);
	assert_refused(world, sn_world_set_pair_collision(world, a, a, false), SN_ERR_INVALID_ARGUMENT);
	assert_sn_ok(sn_world_set_pair_collision(world, a, b, true));
	assert_sn_ok(sn_world_set_pair_collision(world, world_body, a, true));
	step(world, 1);
	assert_true(touching(world, sa, sb) && touching(world, ground, sa));
	assert_false(touching(world, sb, sl));
	// Destroying a body drops its exclusions (its slot's next body is not excluded).
	assert_sn_ok(sn_destroy_body(world, b));
	sn_shape_id again;
	sn_body_id reuse = box_body(world, SN_BODY_DYNAMIC, at(0.15, 0, 0.1), sn_v3(0.1, 0.1, 0.1), &again);
	assert_int_equal(reuse.index1, b.index1);
	step(world, 1);
	assert_true(touching(world, again, sl));
	sn_world_destroy(world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_category_and_mask),  cmocka_unit_test(test_body_rules),
		cmocka_unit_test(test_articulation_rules), cmocka_unit_test(test_joint_rules),
		cmocka_unit_test(test_explicit_exclusion),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
