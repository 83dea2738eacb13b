// Articulation links are bodies: every link has a body of type SN_BODY_LINK whose getters agree with the
// articulation's own link getters, whose forces go to the articulation, and whose setters that would
// move or reshape it are refused; maximal joints onto it are refused for now; it lives and dies with its
// articulation and is not counted among the world's bodies.
#include "world_support.h"

// A floating three-link articulation (revolute, prismatic, spherical) with offset centres of mass,
// moving: initial joint speeds and a spinning base.
static sn_articulation_id moving_articulation(sn_world* world)
{
	sn_link_def links[3] = { sn_default_link_def(), sn_default_link_def(), sn_default_link_def() };
	links[0].mass = 2.0;
	links[0].center_of_mass = sn_v3(0.05, 0.0, 0.02);
	links[0].inertia = sn_mat33_diag(0.02, 0.03, 0.04);
	links[1].parent = 0;
	links[1].joint_type = SN_LINK_JOINT_REVOLUTE;
	links[1].parent_frame = posed(sn_v3(0.3, 0, 0), scene_x_to_y());
	links[1].child_frame = posed(sn_v3(-0.2, 0, 0), scene_x_to_y());
	links[1].center_of_mass = sn_v3(0.0, 0.03, 0.0);
	links[1].initial_position[0] = 0.4;
	links[1].initial_velocity[0] = 1.5;
	links[2].parent = 1;
	links[2].joint_type = SN_LINK_JOINT_PRISMATIC;
	links[2].parent_frame.p = sn_v3(0.2, 0, 0);
	links[2].initial_velocity[0] = -0.3;
	links[2].mass = 0.5;
	sn_articulation_def ad = sn_default_articulation_def();
	ad.fixed_base = false;
	ad.base_pose = posed(sn_v3(1, 2, 3), sn_quat_from_axis_angle(sn_normalize(sn_v3(1, 1, 0)), 0.3));
	ad.base_linear_velocity = sn_v3(0.1, -0.2, 0.5);
	ad.base_angular_velocity = sn_v3(0.3, 0.2, -0.4);
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 3, &id));
	return id;
}

static void test_getters_agree(void** state)
{
	(void)state;
	sn_world* world = make_world(0.001, sn_v3(0, 0, -9.81));
	sn_body_id ordinary = make_body(world, SN_BODY_DYNAMIC, at(5, 0, 0));
	sn_articulation_id art = moving_articulation(world);
	assert_int_equal(sn_world_get_body_count(world), 1); // links are not counted
	sn_body_id ids[4];
	assert_int_equal(sn_world_get_bodies(world, ids, 4), 1);
	assert_true(sn_body_id_equals(ids[0], ordinary));
	step(world, 50);
	double energy = 0.0;
	for (int l = 0; l < 3; ++l)
	{
		sn_body_id b = sn_articulation_get_link_body(world, art, l);
		assert_true(sn_body_is_valid(world, b));
		assert_int_equal(sn_body_get_type(world, b), SN_BODY_LINK);
		sn_articulation_id back;
		int link = -1;
		assert_sn_ok(sn_body_get_link(world, b, &back, &link));
		assert_true(sn_articulation_id_equals(back, art) && link == l);
		sn_transform pose = sn_articulation_get_link_pose(world, art, l);
		sn_transform bp = sn_body_get_pose(world, b);
		assert_true(bp.p.x == pose.p.x && bp.p.y == pose.p.y && bp.p.z == pose.p.z && bp.q.w == pose.q.w);
		sn_link_def def;
		assert_sn_ok(sn_articulation_get_link_def(world, art, l, &def));
		assert_true(sn_body_get_mass(world, b) == def.mass);
		assert_true(sn_body_get_inertia(world, b).cy.y == def.inertia.cy.y);
		sn_vec3 com = sn_transform_point(pose, def.center_of_mass);
		assert_near(sn_length(sn_sub(sn_body_get_center_of_mass(world, b), com)), 0.0, 0.0, "the same composition");
		sn_vec3 v, w;
		assert_sn_ok(sn_articulation_get_link_velocity(world, art, l, &v, &w));
		// The velocity of the link's origin from the body's point velocity; the angular velocity as is.
		assert_near(sn_length(sn_sub(sn_body_get_point_velocity(world, b, pose.p), v)), 0.0, 1e-14,
					"the same kinematics, summed in another order");
		assert_near(sn_length(sn_sub(sn_body_get_angular_velocity(world, b), w)), 0.0, 1e-14, "the same sum");
		// The centre of mass's velocity: the origin's plus w x (com - origin).
		sn_vec3 vc = sn_add(v, sn_cross(w, sn_sub(com, pose.p)));
		assert_near(sn_length(sn_sub(sn_body_get_linear_velocity(world, b), vc)), 0.0, 1e-13, "rigid motion, rounding");
		energy += sn_body_get_kinetic_energy(world, b);
	}
	assert_near(energy, sn_articulation_get_kinetic_energy(world, art),
				1e-12 * sn_articulation_get_kinetic_energy(world, art), "the links' shares add up, rounding");
	sn_world_destroy(world);
}

static void test_forces_and_refusals(void** state)
{
	(void)state;
	// A force and a torque on a link's body act like the articulation's link force: two worlds, one
	// pushed each way, stay identical.
	sn_world* a = make_world(0.001, sn_v3(0, 0, -9.81));
	sn_world* b = make_world(0.001, sn_v3(0, 0, -9.81));
	sn_articulation_id aa = moving_articulation(a), ab = moving_articulation(b);
	sn_body_id link_a = sn_articulation_get_link_body(a, aa, 1);
	for (int s = 0; s < 20; ++s)
	{
		assert_sn_ok(sn_body_apply_force(a, link_a, sn_v3(1, 2, 3), sn_v3(1, 2, 3.5)));
		assert_sn_ok(sn_body_apply_torque(a, link_a, sn_v3(0.1, 0, -0.2)));
		assert_sn_ok(sn_articulation_apply_link_force(b, ab, 1, sn_v3(1, 2, 3), sn_v3(1, 2, 3.5)));
		assert_sn_ok(sn_articulation_apply_link_torque(b, ab, 1, sn_v3(0.1, 0, -0.2)));
		if (s == 0)
		{
			assert_true(sn_body_get_applied_force(a, link_a).z == 3.0);
		}
		step(a, 1);
		step(b, 1);
		assert_true(sn_world_state_hash(a) == sn_world_state_hash(b));
	}
	// What would move or reshape a link is refused, and changes nothing.
	sn_world* w = a;
	sn_body_id l = link_a;
	assert_refused(w, sn_body_set_pose(w, l, at(0, 0, 0)), SN_ERR_WRONG_TYPE);
	assert_refused(w, sn_body_set_linear_velocity(w, l, sn_v3(1, 0, 0)), SN_ERR_WRONG_TYPE);
	assert_refused(w, sn_body_set_angular_velocity(w, l, sn_v3(1, 0, 0)), SN_ERR_WRONG_TYPE);
	assert_refused(w, sn_body_set_mass_properties(w, l, 1.0, sn_mat33_diag(1, 1, 1), sn_v3(0, 0, 0)),
				   SN_ERR_WRONG_TYPE);
	assert_refused(w, sn_body_set_type(w, l, SN_BODY_DYNAMIC), SN_ERR_WRONG_TYPE);
	assert_refused(w, sn_body_set_damping(w, l, 1.0, 1.0), SN_ERR_WRONG_TYPE);
	assert_refused(w, sn_body_set_gravity_scale(w, l, 0.0), SN_ERR_WRONG_TYPE);
	assert_refused(w, sn_destroy_body(w, l), SN_ERR_WRONG_TYPE);
	sn_body_state bs = { l, true, sn_transform_identity(), false, { 0, 0, 0 }, false, { 0, 0, 0 } };
	assert_refused(w, sn_world_set_body_states(w, &bs, 1), SN_ERR_WRONG_TYPE);
	sn_body_def bd = sn_default_body_def();
	bd.type = SN_BODY_LINK;
	sn_body_id made;
	assert_refused(w, sn_create_body(w, &bd, &made), SN_ERR_INVALID_ARGUMENT);
	sn_body_id other = make_body(w, SN_BODY_DYNAMIC, at(0, 0, 0));
	assert_refused(w, sn_body_set_type(w, other, SN_BODY_LINK), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_body_get_link(w, other, NULL, NULL), SN_ERR_WRONG_TYPE);
	// User data goes to the link.
	assert_sn_ok(sn_body_set_user_data(w, l, 42));
	assert_int_equal(sn_articulation_get_link_user_data(w, aa, 1), 42);
	// Maximal joints onto a link's body (a body to a link, a link to the world); they go with the
	// articulation (their link bodies are destroyed with it).
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base.body_a = other;
	hd.base.body_b = l;
	sn_joint_id j, k;
	assert_sn_ok(sn_create_hinge_joint(w, &hd, &j));
	hd.base.body_a = l;
	hd.base.body_b = (sn_body_id){ 0, 0 };
	sn_fixed_joint_def fd = sn_default_fixed_joint_def();
	fd.base = hd.base;
	assert_sn_ok(sn_create_fixed_joint(w, &fd, &k));
	assert_sn_ok(sn_world_step(w));
	assert_sn_ok(sn_destroy_articulation(w, aa));
	assert_false(sn_joint_is_valid(w, j));
	assert_false(sn_joint_is_valid(w, k));
	assert_true(sn_body_is_valid(w, other));
	sn_world_destroy(a);
	sn_world_destroy(b);
}

// Link bodies and their shapes go with the articulation; the slots are reused with new generations.
static void test_lifetime(void** state)
{
	(void)state;
	sn_world* world = zero_g_world();
	make_ground(world);
	sn_link_def links[2] = { sn_default_link_def(), sn_default_link_def() };
	links[1].parent = 0;
	links[1].parent_frame.p = sn_v3(0.3, 0, 0);
	sn_articulation_def ad = sn_default_articulation_def();
	ad.base_pose.p = sn_v3(0, 0, 0.05);
	sn_articulation_id art;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 2, &art));
	sn_body_id l0 = sn_articulation_get_link_body(world, art, 0), l1 = sn_articulation_get_link_body(world, art, 1);
	sn_shape_id s0 = make_shape(world, l0, sn_geometry_sphere(0.05), sn_transform_identity());
	sn_shape_id s1 = make_shape(world, l1, sn_geometry_sphere(0.05), sn_transform_identity());
	step(world, 1);
	assert_int_equal(sn_world_get_contacts(world, NULL, 0), 2); // both spheres on the ground
	assert_true(sn_body_id_is_null(sn_articulation_get_link_body(world, art, 2)));
	assert_sn_ok(sn_destroy_articulation(world, art));
	assert_false(sn_body_is_valid(world, l0) || sn_body_is_valid(world, l1));
	assert_false(sn_shape_is_valid(world, s0) || sn_shape_is_valid(world, s1));
	assert_int_equal(sn_world_get_contacts(world, NULL, 0), 0);
	step(world, 1);
	assert_int_equal(sn_world_get_contact_events(world).end_count, 2);
	// A new body takes a freed slot, with another generation: the old link id stays invalid.
	sn_body_id b = make_body(world, SN_BODY_DYNAMIC, at(0, 0, 0));
	assert_true(b.index1 == l0.index1 || b.index1 == l1.index1);
	assert_false(sn_body_is_valid(world, l0) || sn_body_is_valid(world, l1));
	assert_int_equal(sn_world_get_body_count(world), 1);
	sn_world_destroy(world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getters_agree),
		cmocka_unit_test(test_forces_and_refusals),
		cmocka_unit_test(test_lifetime),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
