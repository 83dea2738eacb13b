// Articulations and mimic joints over the wire: creation (links sent one by one through a growing
// field), drive targets for many dofs, joint state, dof forces (closed form), mimic couplings, state
// frames with joint positions, link poses and drive efforts, snapshots, and the errors the core and the
// server give for bad trees, stale ids and sizes.
#include "fixture.h"

#include "wire.h"

#include <math.h>
#include <string.h>

static int setup(void** state)
{
	(void)state;
	static const char* const args[] = { "--max-links-per-articulation", "16", "--max-mimic-joints-per-world", "3",
										NULL };
	return test_group_start(args);
}

static const double h = 0.001;

// A PGS world without gravity.
static uint64_t weightless_world(snc_client* c)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_create_world_tag;
	m.command.create_world.has_settings = true;
	m.command.create_world.settings.has_gravity = true;
	m.command.create_world.settings.solver = sinew_v1_Solver_SOLVER_PGS;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	uint64_t id = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	return id;
}

// A serial chain: link 0 the fixed base, links 1..n revolute about the z axis of their parent-side frame
// (the joint frame turns x onto z), each 1 m long, mass 2 kg, centre of mass 0.5 m along its x, inertia
// 0.1 kg*m^2 about every axis through it. drives[i] (stiffness, damping) for link i + 1 when non-zero.
static sinew_v1_LinkDef chain_link(int i, double stiffness, double damping)
{
	sinew_v1_LinkDef l = sinew_v1_LinkDef_init_zero;
	const double s = sqrt(0.5);
	l.parent = i - 1;
	l.has_mass = true;
	l.mass = 2.0;
	l.has_inertia = true;
	l.inertia = (sinew_v1_Inertia){ 0.1, 0.1, 0.1, 0, 0, 0 };
	l.has_center_of_mass = true;
	l.center_of_mass.x = 0.5;
	if (i == 0)
	{
		return l;
	}
	l.joint_type = sinew_v1_LinkJointType_LINK_REVOLUTE;
	l.has_parent_frame = true;
	l.parent_frame.has_position = true;
	l.parent_frame.position.x = i == 1 ? 0.0 : 1.0;
	l.parent_frame.has_rotation = true;
	l.parent_frame.rotation = (sinew_v1_Quat){ 0, -s, 0, s }; // x onto z
	l.has_child_frame = true;
	l.child_frame.has_rotation = true;
	l.child_frame.rotation = (sinew_v1_Quat){ 0, -s, 0, s };
	if (stiffness > 0)
	{
		l.drives_count = 1;
		l.drives[0].enabled = true;
		l.drives[0].stiffness = stiffness;
		l.drives[0].damping = damping;
	}
	return l;
}

static const sinew_v1_ArticulationState* find_articulation(const snc_message* m, uint64_t id)
{
	for (int i = 0; i < m->articulation_count; ++i)
	{
		if (m->articulations[i].id == id)
		{
			return m->articulations + i;
		}
	}
	fail_msg("articulation %llu is not in the state", (unsigned long long)id);
	return NULL;
}

enum
{
	EVERYTHING = sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_VELOCITIES |
		sinew_v1_Include_INCLUDE_JOINT_POSITIONS | sinew_v1_Include_INCLUDE_DRIVE_EFFORTS
};

static void test_dof_force_closed_form(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "dof-force", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = weightless_world(c);
	sinew_v1_LinkDef links[2] = { chain_link(0, 0, 0), chain_link(1, 0, 0) };
	uint64_t arm = 0;
	uint32_t dofs = 0;
	assert_int_equal(test_create_articulation(c, world, links, 2, &arm, &dofs), 0);
	assert_int_equal(dofs, 1);
	// A torque tau on the revolute dof for one step: qdot = tau h / I, with I about the joint axis
	// = I_com + m d^2 = 0.1 + 2 * 0.5^2 = 0.6 kg*m^2 (parallel axis theorem; nothing else acts).
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_apply_forces_tag;
	m.command.apply_forces.world_id = world;
	m.command.apply_forces.dofs_count = 1;
	m.command.apply_forces.dofs[0].articulation_id = arm;
	m.command.apply_forces.dofs[0].force = 1.2;
	test_expect(c, &m, 0, NULL);
	// Out of range and not finite are refused whole.
	m.command.apply_forces.dofs[0].dof = 1;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	m.command.apply_forces.dofs[0].dof = 0;
	m.command.apply_forces.dofs[0].force = NAN;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_NOT_FINITE, NULL);
	test_step(c, world, 1);
	snc_message st;
	test_get_state(c, world, EVERYTHING, &st);
	const sinew_v1_ArticulationState* a = find_articulation(&st, arm);
	assert_int_equal(a->velocity_count, 1);
	assert_near(a->velocity[0], 1.2 * h / 0.6, 1e-12, "qdot = tau h / I after one step, rounding only");
	assert_int_equal(a->link_poses_count, 2);
	snc_message_free(&st);
	snc_close(c);
}

static void test_drive_targets_joint_state_and_frames(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "drives", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = weightless_world(c);
	sinew_v1_LinkDef links[3] = { chain_link(0, 0, 0), chain_link(1, 400, 40), chain_link(2, 400, 40) };
	uint64_t arm = 0;
	uint32_t dofs = 0;
	assert_int_equal(test_create_articulation(c, world, links, 3, &arm, &dofs), 0);
	assert_int_equal(dofs, 2);
	// Beside it, a maximal-coordinate hinge servo (stiff, damped spring towards its target, 0 rad) far away.
	uint64_t body = test_create_body(c, world, 0.5, 0, -5);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_joint_tag);
	sinew_v1_CreateJoint* j = &m.command.create_joint;
	j->world_id = world;
	j->has_base = true;
	j->base.body_b = body;
	j->base.has_frame_a = true;
	j->base.frame_a.has_position = true;
	j->base.frame_a.position.z = -5;
	j->base.has_frame_b = true;
	j->base.frame_b.has_position = true;
	j->base.frame_b.position.x = -0.5;
	j->which_type = sinew_v1_CreateJoint_hinge_tag;
	j->type.hinge.has_spring = true;
	j->type.hinge.spring.enabled = true;
	j->type.hinge.spring.has_soft = true;
	j->type.hinge.spring.soft.kind = sinew_v1_SoftKind_SOFT_FREQUENCY;
	j->type.hinge.spring.soft.frequency_hz = 5.0;
	j->type.hinge.spring.soft.damping_ratio = 1.0;
	uint64_t hinge = test_created(c, &m);

	// Both dofs' targets in one command.
	m = test_command(sinew_v1_ClientMessage_set_drive_targets_tag);
	m.command.set_drive_targets.world_id = world;
	m.command.set_drive_targets.has_articulation = true;
	sinew_v1_ArticulationTargets* t = &m.command.set_drive_targets.articulation;
	t->articulation_id = arm;
	t->dofs_count = 2;
	t->dofs[0] = 0;
	t->dofs[1] = 1;
	t->positions_count = 2;
	t->positions[0] = 0.3;
	t->positions[1] = -0.2;
	test_expect(c, &m, 0, NULL);
	// A batch with a bad dof, or lengths that disagree, changes nothing.
	t->dofs[1] = 7;
	t->positions[0] = 1.0;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	t->dofs[1] = 1;
	t->positions_count = 1;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	// The hinge's target in the same command as a bad dof is refused with it.
	m.command.set_drive_targets.joints_count = 1;
	m.command.set_drive_targets.joints[0].joint_id = hinge;
	m.command.set_drive_targets.joints[0].axis = sinew_v1_Axis_AXIS_RX;
	m.command.set_drive_targets.joints[0].target = 0.5;
	t->dofs[1] = 7;
	t->positions_count = 2;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	test_step(c, world, 3000);
	snc_message st;
	test_get_state(c, world, EVERYTHING, &st);
	const sinew_v1_ArticulationState* a = find_articulation(&st, arm);
	assert_int_equal(a->position_count, 2);
	assert_int_equal(a->effort_count, 2);
	assert_int_equal(a->link_poses_count, 3);
	assert_near(a->position[0], 0.3, 1e-3, "stiff damped drives settle within 3 s without gravity");
	assert_near(a->position[1], -0.2, 1e-3, "stiff damped drives settle within 3 s without gravity");
	// Settled without gravity: the drives push no more.
	assert_below(fabs(a->effort[0]), 0.5, "a settled drive in zero gravity exerts next to nothing");
	// Link 1 turned by q0 about z: its frame's rotation is the joint's (0.3 rad about z).
	assert_near(a->link_poses[1].rotation.z, sin(0.15), 1e-3, "link 1 turned by q0 about z");
	// The hinge's target stayed 0 rad: nothing moves it from rest (a target of 0.5 rad would have, by now,
	// as in test_session's servo).
	const sinew_v1_JointState* js = NULL;
	for (int i = 0; i < st.joint_count; ++i)
	{
		js = st.joints[i].id == hinge ? st.joints + i : js;
	}
	assert_non_null(js);
	assert_near(js->position[0], 0.0, 1e-9, "a servo at rest on its target stays there (rounding only)");
	snc_message_free(&st);

	// Joint state: set and read back exactly.
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_set_joint_state_tag;
	m.command.set_joint_state.world_id = world;
	m.command.set_joint_state.articulation_id = arm;
	m.command.set_joint_state.positions_count = 2;
	m.command.set_joint_state.positions[0] = 0.125;
	m.command.set_joint_state.positions[1] = -0.375;
	m.command.set_joint_state.velocities_count = 2;
	test_expect(c, &m, 0, NULL);
	m.command.set_joint_state.positions_count = 3;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	// New positions with a velocity that is not finite: refused whole, the positions stay.
	m.command.set_joint_state.positions_count = 2;
	m.command.set_joint_state.positions[0] = 0.5;
	m.command.set_joint_state.velocities[1] = NAN;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_NOT_FINITE, NULL);
	test_get_state(c, world, sinew_v1_Include_INCLUDE_JOINT_POSITIONS, &st);
	a = find_articulation(&st, arm);
	assert_true(a->position[0] == 0.125 && a->position[1] == -0.375);
	snc_message_free(&st);

	// Subscribers get the articulation in their frames.
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_subscribe_tag;
	m.command.subscribe.world_id = world;
	m.command.subscribe.include = EVERYTHING;
	test_expect(c, &m, 0, NULL);
	snc_message frame;
	test_wait_for(c, sinew_v1_ServerMessage_state_tag, &frame);
	assert_int_equal(frame.articulation_count, 1);
	assert_int_equal(frame.articulations[0].position_count, 2);
	snc_message_free(&frame);
	snc_close(c);
}

// CreateMimic coupling dofs 0 and 1 of `arm` by q0 - q1 = 0.
static sinew_v1_ClientMessage equal_dofs_mimic(uint64_t world, uint64_t arm)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_create_mimic_tag;
	m.command.create_mimic.world_id = world;
	m.command.create_mimic.has_mimic = true;
	sinew_v1_MimicDef* md = &m.command.create_mimic.mimic;
	md->articulation_id = arm;
	md->dofs_count = 2;
	md->dofs[0] = 0;
	md->dofs[1] = 1;
	md->gearing_count = 2;
	md->gearing[0] = 1.0;
	md->gearing[1] = -1.0;
	return m;
}

static void test_mimic_joint(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "mimic", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = weightless_world(c);
	// Dof 0 driven to 0.4 rad; dof 1 free but coupled by q0 - q1 = 0.
	sinew_v1_LinkDef links[3] = { chain_link(0, 0, 0), chain_link(1, 400, 40), chain_link(2, 0, 0) };
	links[1].drives[0].target_position = 0.4;
	uint64_t arm = 0;
	uint32_t dofs = 0;
	assert_int_equal(test_create_articulation(c, world, links, 3, &arm, &dofs), 0);
	sinew_v1_ClientMessage m = equal_dofs_mimic(world, arm);
	sinew_v1_MimicDef* md = &m.command.create_mimic.mimic;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	uint64_t mimic = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	// Gearings that do not match the dofs, and a dof twice, are refused.
	md->gearing_count = 1;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	md->gearing_count = 2;
	md->dofs[1] = 0;
	int32_t code = test_request(c, &m, &reply);
	snc_message_free(&reply);
	assert_true(code != 0);

	test_step(c, world, 3000);
	snc_message st;
	test_get_state(c, world, sinew_v1_Include_INCLUDE_JOINT_POSITIONS, &st);
	const sinew_v1_ArticulationState* a = find_articulation(&st, arm);
	assert_near(a->position[0], 0.4, 5e-3, "the drive holds dof 0 against the coupled dof 1");
	assert_near(a->position[1], a->position[0], 1e-3, "the mimic row keeps q1 = q0 (Baumgarte, erp 0.2)");
	snc_message_free(&st);

	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_destroy_mimic_tag;
	m.command.destroy_mimic.world_id = world;
	m.command.destroy_mimic.mimic_id = mimic;
	test_expect(c, &m, 0, NULL);
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_destroy_articulation_tag;
	m.command.destroy_articulation.world_id = world;
	m.command.destroy_articulation.articulation_id = arm;
	test_expect(c, &m, 0, NULL);
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	test_get_state(c, world, 0, &st);
	assert_int_equal(st.articulation_count, 0);
	snc_message_free(&st);
	snc_close(c);
}

static void test_bad_articulations(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "bad", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = weightless_world(c);
	uint64_t arm = 0;
	uint32_t dofs = 0;
	// No links at all.
	assert_int_equal(test_create_articulation(c, world, NULL, 0, &arm, &dofs), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	// A parent that is not an earlier link.
	sinew_v1_LinkDef links[17];
	for (int i = 0; i < 17; ++i)
	{
		links[i] = chain_link(i, 0, 0);
	}
	links[2].parent = 5;
	assert_int_equal(test_create_articulation(c, world, links, 3, &arm, &dofs), sinew_v1_ErrorCode_ERR_TOPOLOGY);
	links[2].parent = 1;
	// A link without mass; a NaN frame.
	links[1].mass = 0.0;
	assert_int_equal(test_create_articulation(c, world, links, 3, &arm, &dofs),
					 sinew_v1_ErrorCode_ERR_NON_POSITIVE_MASS);
	links[1].mass = 2.0;
	links[2].parent_frame.position.y = NAN;
	assert_int_equal(test_create_articulation(c, world, links, 3, &arm, &dofs), sinew_v1_ErrorCode_ERR_NOT_FINITE);
	links[2].parent_frame.position.y = 0.0;
	// More links than max_links_per_articulation (16 here).
	assert_int_equal(test_create_articulation(c, world, links, 17, &arm, &dofs), sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	// Nothing was created by the refusals.
	snc_message st;
	test_get_state(c, world, 0, &st);
	assert_int_equal(st.articulation_count, 0);
	snc_message_free(&st);
	// Stale and foreign ids.
	assert_int_equal(test_create_articulation(c, world, links, 16, &arm, &dofs), 0);
	assert_int_equal(dofs, 15);
	uint64_t other = weightless_world(c);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_set_joint_state_tag;
	m.command.set_joint_state.world_id = other;
	m.command.set_joint_state.articulation_id = arm;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	snc_close(c);
}

static void test_snapshot_with_articulation_is_bit_exact(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "snap", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "gravity"); // default TGS, gravity on
	sinew_v1_LinkDef links[6];
	for (int i = 0; i < 6; ++i)
	{
		links[i] = chain_link(i, i % 2 == 0 ? 0.0 : 300.0, 10.0);
	}
	uint64_t arm = 0;
	uint32_t dofs = 0;
	assert_int_equal(test_create_articulation(c, world, links, 6, &arm, &dofs), 0);
	test_step(c, world, 100);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_snapshot_tag;
	m.command.snapshot.world_id = world;
	snc_message snap;
	test_expect(c, &m, 0, &snap);
	test_step(c, world, 300);
	snc_message first, second;
	test_get_state(c, world, EVERYTHING, &first);
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_restore_tag;
	m.command.restore.world_id = world;
	wire_bytes data = { snap.bytes, snap.byte_count };
	m.command.restore.data.funcs.encode = wire_encode_bytes;
	m.command.restore.data.arg = &data;
	test_expect(c, &m, 0, NULL);
	test_step(c, world, 300);
	test_get_state(c, world, EVERYTHING, &second);
	const sinew_v1_ArticulationState* a = find_articulation(&first, arm);
	const sinew_v1_ArticulationState* b = find_articulation(&second, arm);
	assert_int_equal(a->position_count, 5);
	assert_memory_equal(a->position, b->position, sizeof(double) * a->position_count);
	assert_memory_equal(a->velocity, b->velocity, sizeof(double) * a->velocity_count);
	assert_memory_equal(a->effort, b->effort, sizeof(double) * a->effort_count);
	assert_memory_equal(a->link_poses, b->link_poses, sizeof(sinew_v1_Transform) * a->link_poses_count);
	snc_message_free(&first);
	snc_message_free(&second);
	snc_message_free(&snap);
	snc_close(c);
}

static void test_mimic_joints_are_bounded(void** state)
{
	(void)state;
	// Each mimic joint is a row of its articulation's dense hold system, and a step costs about their cube:
	// unbounded, thousands of CreateMimic on two dofs made one step take minutes. A world holds at most
	// max_mimic_joints_per_world (3 here); the fourth is refused naming it, and a destroyed one makes room.
	snc_client* c = test_connect(&group_server, SNC_TCP, "mimics", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = weightless_world(c);
	sinew_v1_LinkDef links[3] = { chain_link(0, 0, 0), chain_link(1, 0, 0), chain_link(2, 0, 0) };
	uint64_t arm = 0;
	uint32_t dofs = 0;
	assert_int_equal(test_create_articulation(c, world, links, 3, &arm, &dofs), 0);
	sinew_v1_ClientMessage m = equal_dofs_mimic(world, arm);
	uint64_t first = 0;
	for (int i = 0; i < 3; ++i)
	{
		snc_message reply;
		test_expect(c, &m, 0, &reply);
		first = i == 0 ? reply.msg.message.reply.result.created.id : first;
		snc_message_free(&reply);
	}
	snc_message reply;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_LIMIT_REACHED, &reply);
	assert_non_null(strstr(snc_reply_text(&reply), "max_mimic_joints_per_world"));
	snc_message_free(&reply);
	sinew_v1_ClientMessage d = sinew_v1_ClientMessage_init_zero;
	d.which_command = sinew_v1_ClientMessage_destroy_mimic_tag;
	d.command.destroy_mimic.world_id = world;
	d.command.destroy_mimic.mimic_id = first;
	test_expect(c, &d, 0, NULL);
	test_expect(c, &m, 0, NULL);
	test_step(c, world, 10);
	snc_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dof_force_closed_form), cmocka_unit_test(test_drive_targets_joint_state_and_frames),
		cmocka_unit_test(test_mimic_joint),           cmocka_unit_test(test_mimic_joints_are_bounded),
		cmocka_unit_test(test_bad_articulations),     cmocka_unit_test(test_snapshot_with_articulation_is_bit_exact),
	};
	return cmocka_run_group_tests(tests, setup, test_group_teardown);
}
