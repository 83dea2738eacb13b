// A full session per command against a real sinewd: every command once with its result checked, physics
// results against closed forms where a command's effect has one.
#include "fixture.h"

#include "wire.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// A PGS world without gravity unless given, dt 1 ms.
static uint64_t create_pgs_world(snc_client* c, double gz)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	sinew_v1_CreateWorld* w = &m.command.create_world;
	snprintf(w->name, sizeof(w->name), "pgs");
	w->has_settings = true;
	w->settings.has_gravity = true;
	w->settings.gravity.z = gz;
	w->settings.solver = sinew_v1_Solver_SOLVER_PGS;
	w->settings.has_time_step = true;
	w->settings.time_step = 0.001;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	uint64_t id = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	return id;
}

static const sinew_v1_BodyState* find_body(const snc_message* m, uint64_t id)
{
	for (int i = 0; i < m->body_count; ++i)
	{
		if (m->bodies[i].id == id)
		{
			return m->bodies + i;
		}
	}
	fail_msg("body %llu is not in the state", (unsigned long long)id);
	return NULL;
}

static const sinew_v1_JointState* find_joint(const snc_message* m, uint64_t id)
{
	for (int i = 0; i < m->joint_count; ++i)
	{
		if (m->joints[i].id == id)
		{
			return m->joints + i;
		}
	}
	fail_msg("joint %llu is not in the state", (unsigned long long)id);
	return NULL;
}

static bool has_capability(const sinew_v1_HandshakeReply* r, const char* name)
{
	for (pb_size_t i = 0; i < r->capabilities_count; ++i)
	{
		if (strcmp(r->capabilities[i], name) == 0)
		{
			return true;
		}
	}
	return false;
}

static void test_handshake_and_ping(void** state)
{
	(void)state;
	snc_client* c = test_connect_raw(&group_server, SNC_TCP);
	sinew_v1_HandshakeReply hr;
	assert_int_equal(snc_handshake(c, "session-test", NULL, sinew_v1_Role_ROLE_CONTROLLER, &hr), 0);
	assert_int_equal(hr.status.code, 0);
	assert_int_equal(hr.protocol_version, 1);
	assert_true(hr.session_id != 0);
	assert_int_equal(hr.role, sinew_v1_Role_ROLE_CONTROLLER);
	assert_true(has_capability(&hr, "lockstep"));
	assert_true(has_capability(&hr, "snapshots"));
	assert_true(has_capability(&hr, "articulations"));
	assert_true(hr.max_message_bytes >= 1024);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_ping_tag);
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	assert_int_equal(reply.msg.message.reply.request_id, m.request_id);
	snc_message_free(&reply);
	snc_close(c);
}

static void test_world_lifecycle(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "worlds", sinew_v1_Role_ROLE_CONTROLLER);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	sinew_v1_CreateWorld* cw = &m.command.create_world;
	snprintf(cw->name, sizeof(cw->name), "settings");
	cw->has_settings = true;
	cw->settings.has_gravity = true;
	cw->settings.gravity = (sinew_v1_Vec3){ 0, 0, -1.5 };
	cw->settings.has_time_step = true;
	cw->settings.time_step = 0.002;
	cw->settings.solver = sinew_v1_Solver_SOLVER_PGS;
	cw->settings.has_position_iterations = true;
	cw->settings.position_iterations = 4;
	cw->settings.has_substeps = true;
	cw->settings.substeps = 2;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	uint64_t world = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);

	// The list shows it with its settings and this session as owner.
	m = test_command(sinew_v1_ClientMessage_list_worlds_tag);
	test_expect(c, &m, 0, &reply);
	const sinew_v1_WorldInfo* info = NULL;
	for (int i = 0; i < reply.world_count; ++i)
	{
		if (reply.worlds[i].world_id == world)
		{
			info = reply.worlds + i;
		}
	}
	assert_non_null(info);
	assert_string_equal(info->name, "settings");
	assert_int_equal(info->your_role, sinew_v1_Role_ROLE_OWNER);
	assert_int_equal(info->settings.solver, sinew_v1_Solver_SOLVER_PGS);
	assert_true(info->settings.time_step == 0.002);
	assert_true(info->settings.gravity.z == -1.5);
	assert_int_equal(info->settings.position_iterations, 4);
	assert_int_equal(info->settings.substeps, 2);
	snc_message_free(&reply);

	// Configure changes only what is sent.
	m = test_command(sinew_v1_ClientMessage_configure_world_tag);
	m.command.configure_world.world_id = world;
	m.command.configure_world.has_settings = true;
	m.command.configure_world.settings.has_erp = true;
	m.command.configure_world.settings.erp = 0.5;
	test_expect(c, &m, 0, &reply);
	assert_true(reply.msg.message.reply.result.world.settings.erp == 0.5);
	assert_true(reply.msg.message.reply.result.world.settings.time_step == 0.002);
	snc_message_free(&reply);
	// An invalid setting is refused with the core's error and changes nothing.
	m.command.configure_world.settings.erp = 2.0;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	// Warm start and DIRECT's implicit factors travel too, validated by the core.
	m = test_command(sinew_v1_ClientMessage_configure_world_tag);
	m.command.configure_world.world_id = world;
	m.command.configure_world.has_settings = true;
	m.command.configure_world.settings.has_warm_start = true;
	m.command.configure_world.settings.warm_start = 0.9;
	m.command.configure_world.settings.has_implicit_alpha = true;
	m.command.configure_world.settings.implicit_alpha = 0.75;
	test_expect(c, &m, 0, &reply);
	assert_true(reply.msg.message.reply.result.world.settings.warm_start == 0.9);
	assert_true(reply.msg.message.reply.result.world.settings.implicit_alpha == 0.75);
	assert_true(reply.msg.message.reply.result.world.settings.implicit_beta == 1.0);
	assert_true(reply.msg.message.reply.result.world.settings.erp == 0.5);
	snc_message_free(&reply);
	m.command.configure_world.settings.warm_start = 1.5;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);

	// Clone, then destroy the clone; its id goes stale.
	test_create_body(c, world, 0, 0, 1);
	m = test_command(sinew_v1_ClientMessage_clone_world_tag);
	m.command.clone_world.world_id = world;
	test_expect(c, &m, 0, &reply);
	uint64_t clone = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	assert_true(clone != world);
	test_get_state(c, clone, 0, &reply);
	assert_int_equal(reply.body_count, 1);
	snc_message_free(&reply);
	m = test_command(sinew_v1_ClientMessage_destroy_world_tag);
	m.command.destroy_world.world_id = clone;
	test_expect(c, &m, 0, NULL);
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_UNKNOWN_WORLD, NULL);
	m.command.destroy_world.world_id = world;
	test_expect(c, &m, 0, NULL);
	snc_close(c);
}

static void test_bodies_and_every_joint_type(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "joints", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = create_pgs_world(c, 0.0);
	uint64_t bodies[8];
	for (int i = 0; i < 8; ++i)
	{
		bodies[i] = test_create_body(c, world, i, 0, 0);
	}
	// Static and kinematic bodies.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_body_tag);
	m.command.create_body.world_id = world;
	m.command.create_body.has_body = true;
	m.command.create_body.body.type = sinew_v1_BodyType_BODY_STATIC;
	test_expect(c, &m, 0, NULL);
	m.command.create_body.body.type = sinew_v1_BodyType_BODY_KINEMATIC;
	test_expect(c, &m, 0, NULL);
	// An unknown body type is the core's INVALID_ARGUMENT.
	m.command.create_body.body.type = (sinew_v1_BodyType)7;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);

	// One joint of each type between consecutive bodies; the state lists its moving coordinates.
	static const struct
	{
		pb_size_t tag;
		pb_size_t coordinates;
	} types[] = {
		{ sinew_v1_CreateJoint_fixed_tag, 0 },     { sinew_v1_CreateJoint_hinge_tag, 1 },
		{ sinew_v1_CreateJoint_prismatic_tag, 1 }, { sinew_v1_CreateJoint_cylindrical_tag, 2 },
		{ sinew_v1_CreateJoint_spherical_tag, 3 }, { sinew_v1_CreateJoint_distance_tag, 1 },
		{ sinew_v1_CreateJoint_six_axis_tag, 6 },
	};
	uint64_t joints[7];
	for (int i = 0; i < 7; ++i)
	{
		m = test_command(sinew_v1_ClientMessage_create_joint_tag);
		sinew_v1_CreateJoint* j = &m.command.create_joint;
		j->world_id = world;
		j->has_base = true;
		j->base.body_a = bodies[i];
		j->base.body_b = bodies[i + 1];
		j->base.has_frame_a = true;
		j->base.frame_a.has_position = true;
		j->base.frame_a.position.x = 0.5;
		j->base.has_frame_b = true;
		j->base.frame_b.has_position = true;
		j->base.frame_b.position.x = -0.5;
		j->which_type = types[i].tag;
		if (types[i].tag == sinew_v1_CreateJoint_six_axis_tag)
		{
			j->type.six_axis.axes_count = 1;
			j->type.six_axis.axes[0].axis = sinew_v1_Axis_AXIS_RZ;
			j->type.six_axis.axes[0].mode = sinew_v1_AxisMode_AXIS_FREE;
		}
		snc_message reply;
		test_expect(c, &m, 0, &reply);
		joints[i] = reply.msg.message.reply.result.created.id;
		snc_message_free(&reply);
	}
	// A joint without a type, and one naming the same body twice, are refused.
	m = test_command(sinew_v1_ClientMessage_create_joint_tag);
	m.command.create_joint.world_id = world;
	m.command.create_joint.has_base = true;
	m.command.create_joint.base.body_b = bodies[0];
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	m.command.create_joint.which_type = sinew_v1_CreateJoint_fixed_tag;
	m.command.create_joint.base.body_a = bodies[0];
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_SELF_JOINT, NULL);
	// Six-axis with an axis twice.
	m = test_command(sinew_v1_ClientMessage_create_joint_tag);
	m.command.create_joint.world_id = world;
	m.command.create_joint.has_base = true;
	m.command.create_joint.base.body_b = bodies[0];
	m.command.create_joint.which_type = sinew_v1_CreateJoint_six_axis_tag;
	m.command.create_joint.type.six_axis.axes_count = 2;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);

	snc_message st;
	test_get_state(c, world,
				   sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_JOINT_POSITIONS |
					   sinew_v1_Include_INCLUDE_VELOCITIES | sinew_v1_Include_INCLUDE_JOINT_FORCES,
				   &st);
	assert_int_equal(st.body_count, 10);
	assert_int_equal(st.joint_count, 7);
	for (int i = 0; i < 7; ++i)
	{
		const sinew_v1_JointState* js = find_joint(&st, joints[i]);
		assert_int_equal(js->position_count, types[i].coordinates);
		assert_int_equal(js->velocity_count, types[i].coordinates);
		assert_true(js->has_force);
	}
	const sinew_v1_BodyState* b3 = find_body(&st, bodies[3]);
	assert_true(b3->position.x == 3.0);
	assert_true(b3->rotation.w == 1.0);
	snc_message_free(&st);

	// Destroying a body destroys its joints; destroying again is a stale id.
	m = test_command(sinew_v1_ClientMessage_destroy_body_tag);
	m.command.destroy_body.world_id = world;
	m.command.destroy_body.body_id = bodies[7];
	test_expect(c, &m, 0, NULL);
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	test_get_state(c, world, 0, &st);
	assert_int_equal(st.body_count, 9);
	assert_int_equal(st.joint_count, 6);
	snc_message_free(&st);
	m = test_command(sinew_v1_ClientMessage_destroy_joint_tag);
	m.command.destroy_joint.world_id = world;
	m.command.destroy_joint.joint_id = joints[1];
	test_expect(c, &m, 0, NULL);
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	snc_close(c);
}

static void test_step_free_fall(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "fall", sinew_v1_Role_ROLE_CONTROLLER);
	const double g = 9.81, h = 0.001;
	uint64_t world = create_pgs_world(c, -g);
	uint64_t body = test_create_body(c, world, 0, 0, 0);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_step_tag);
	m.command.step.world_id = world;
	m.command.step.count = 1000;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	assert_int_equal(reply.msg.message.reply.result.step.step_count, 1000);
	assert_near(reply.msg.message.reply.result.step.time, 1.0, 1e-12, "1000 steps of 1 ms, summed in double");
	snc_message_free(&reply);
	snc_message st;
	test_get_state(c, world, sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_VELOCITIES, &st);
	const sinew_v1_BodyState* b = find_body(&st, body);
	// Semi-implicit Euler: v_n = -g n h, z_n = -g h^2 n (n + 1) / 2 exactly (up to rounding).
	double n = 1000;
	assert_near(b->linear_velocity.z, -g * n * h, 1e-9, "v_n = -g n h, rounding over 1000 steps");
	assert_near(b->position.z, -g * h * h * n * (n + 1) / 2, 1e-9, "z_n = -g h^2 n (n+1)/2, rounding");
	assert_near(b->position.z, -0.5 * g * 1.0, 0.01, "within the Euler error g h t / 2 of the closed form");
	snc_message_free(&st);
	// Zero steps, and more than the limit, are refused.
	m.command.step.count = 0;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	m.command.step.count = 100000000;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_LIMIT_REACHED, NULL);
	snc_close(c);
}

static void apply_force(snc_client* c, uint64_t world, uint64_t body, double fx, double tz, int32_t code)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_apply_forces_tag);
	m.command.apply_forces.world_id = world;
	m.command.apply_forces.bodies_count = 1;
	m.command.apply_forces.bodies[0].body_id = body;
	m.command.apply_forces.bodies[0].has_force = true;
	m.command.apply_forces.bodies[0].force.x = fx;
	m.command.apply_forces.bodies[0].has_torque = true;
	m.command.apply_forces.bodies[0].torque.z = tz;
	test_expect(c, &m, code, NULL);
}

static void test_forces_and_body_state(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "forces", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = create_pgs_world(c, 0.0);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_body_tag);
	m.command.create_body.world_id = world;
	m.command.create_body.has_body = true;
	m.command.create_body.body.has_mass = true;
	m.command.create_body.body.mass = 2.0;
	m.command.create_body.body.has_inertia = true;
	m.command.create_body.body.inertia = (sinew_v1_Inertia){ 0.5, 0.5, 0.5, 0, 0, 0 };
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	uint64_t body = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);

	// One step of force F and torque T: v = F h / m, w = T h / I.
	apply_force(c, world, body, 4.0, 1.0, 0);
	// A force that is not finite is refused, and the batch it is in changes nothing.
	apply_force(c, world, body, NAN, 1.0, sinew_v1_ErrorCode_ERR_NOT_FINITE);
	apply_force(c, world, body, INFINITY, 0.0, sinew_v1_ErrorCode_ERR_NOT_FINITE);
	test_step(c, world, 1);
	snc_message st;
	test_get_state(c, world, sinew_v1_Include_INCLUDE_VELOCITIES, &st);
	const sinew_v1_BodyState* b = find_body(&st, body);
	assert_near(b->linear_velocity.x, 4.0 * 0.001 / 2.0, 1e-15, "v = F h / m (one step, rounding only)");
	assert_near(b->angular_velocity.z, 1.0 * 0.001 / 0.5, 1e-12, "w = T h / I (gyroscopic term is zero)");
	snc_message_free(&st);

	// Body state is set exactly and read back exactly.
	m = test_command(sinew_v1_ClientMessage_set_body_state_tag);
	m.command.set_body_state.world_id = world;
	m.command.set_body_state.body_id = body;
	m.command.set_body_state.has_pose = true;
	m.command.set_body_state.pose.has_position = true;
	m.command.set_body_state.pose.position = (sinew_v1_Vec3){ 1.25, -2.5, 3.75 };
	m.command.set_body_state.has_linear_velocity = true;
	m.command.set_body_state.linear_velocity = (sinew_v1_Vec3){ 0.5, 0, 0 };
	test_expect(c, &m, 0, NULL);
	test_get_state(c, world, sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_VELOCITIES, &st);
	b = find_body(&st, body);
	assert_true(b->position.x == 1.25 && b->position.y == -2.5 && b->position.z == 3.75);
	assert_true(b->linear_velocity.x == 0.5);
	snc_message_free(&st);
	// A rejected part (NaN velocity) leaves the pose as it was too.
	m.command.set_body_state.pose.position.x = 9.0;
	m.command.set_body_state.linear_velocity.y = NAN;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_NOT_FINITE, NULL);
	test_get_state(c, world, sinew_v1_Include_INCLUDE_POSES, &st);
	assert_true(find_body(&st, body)->position.x == 1.25);
	snc_message_free(&st);
	snc_close(c);
}

static void set_target(snc_client* c, uint64_t world, uint64_t joint, double target, uint64_t other, int32_t code)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_set_drive_targets_tag);
	m.command.set_drive_targets.world_id = world;
	m.command.set_drive_targets.joints_count = other != 0 ? 2 : 1;
	m.command.set_drive_targets.joints[0].joint_id = joint;
	m.command.set_drive_targets.joints[0].axis = sinew_v1_Axis_AXIS_RX;
	m.command.set_drive_targets.joints[0].target = target;
	m.command.set_drive_targets.joints[1].joint_id = other;
	m.command.set_drive_targets.joints[1].axis = sinew_v1_Axis_AXIS_RX;
	m.command.set_drive_targets.joints[1].target = target;
	test_expect(c, &m, code, NULL);
}

static void test_drive_targets(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "drives", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = create_pgs_world(c, 0.0);
	uint64_t body = test_create_body(c, world, 0.5, 0, 0);
	// A hinge about y with a stiff, damped spring: a position servo.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_joint_tag);
	sinew_v1_CreateJoint* j = &m.command.create_joint;
	j->world_id = world;
	j->has_base = true;
	j->base.body_b = body;
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
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	uint64_t joint = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);

	set_target(c, world, joint, 0.5, 0, 0);
	test_step(c, world, 3000);
	snc_message st;
	test_get_state(c, world, sinew_v1_Include_INCLUDE_JOINT_POSITIONS, &st);
	assert_near(find_joint(&st, joint)->position[0], 0.5, 1e-3,
				"a critically damped 5 Hz servo settles within 3 s to far better than 1 mrad");
	snc_message_free(&st);

	// A batch with a stale joint id is refused whole: the valid target does not move.
	set_target(c, world, joint, -0.5, joint + 12345, sinew_v1_ErrorCode_ERR_INVALID_ID);
	set_target(c, world, joint, NAN, 0, sinew_v1_ErrorCode_ERR_NOT_FINITE);
	test_step(c, world, 1000);
	test_get_state(c, world, sinew_v1_Include_INCLUDE_JOINT_POSITIONS, &st);
	assert_near(find_joint(&st, joint)->position[0], 0.5, 1e-3, "the target stayed at 0.5 rad");
	snc_message_free(&st);
	snc_close(c);
}

static void test_subscribe_and_time_modes(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "stream", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = create_pgs_world(c, -9.81);
	uint64_t body = test_create_body(c, world, 0, 0, 0);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_subscribe_tag);
	m.command.subscribe.world_id = world;
	m.command.subscribe.rate_hz = 200;
	m.command.subscribe.include = sinew_v1_Include_INCLUDE_POSES;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	uint64_t sub = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	// The current state at once, then the state after a step.
	snc_message frame;
	test_wait_for(c, sinew_v1_ServerMessage_state_tag, &frame);
	assert_int_equal(frame.msg.message.state.subscription_id, sub);
	assert_int_equal(frame.msg.message.state.world_id, world);
	assert_int_equal(frame.msg.message.state.tick, 0);
	assert_int_equal(frame.body_count, 1);
	assert_int_equal(frame.bodies[0].id, body);
	snc_message_free(&frame);
	test_step(c, world, 10);
	for (;;)
	{
		test_wait_for(c, sinew_v1_ServerMessage_state_tag, &frame);
		uint64_t tick = frame.msg.message.state.tick;
		snc_message_free(&frame);
		if (tick == 10)
		{
			break;
		}
	}

	// Real time: the world advances by itself; Step is refused; paused again: it stops.
	test_set_mode(c, world, sinew_v1_TimeMode_TIME_REALTIME, 1.0);
	m = test_command(sinew_v1_ClientMessage_step_tag);
	m.command.step.world_id = world;
	m.command.step.count = 1;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_WRONG_TIME_MODE, NULL);
	uint64_t tick = 0;
	while (tick < 50)
	{
		test_wait_for(c, sinew_v1_ServerMessage_state_tag, &frame);
		tick = frame.msg.message.state.tick;
		snc_message_free(&frame);
	}
	test_set_mode(c, world, sinew_v1_TimeMode_TIME_FAST, 1.0);
	while (tick < 5000)
	{
		test_wait_for(c, sinew_v1_ServerMessage_state_tag, &frame);
		tick = frame.msg.message.state.tick;
		snc_message_free(&frame);
	}
	test_set_mode(c, world, sinew_v1_TimeMode_TIME_PAUSED, 1.0);
	snc_message a, b;
	test_get_state(c, world, 0, &a);
	test_sleep_ms(50);
	test_get_state(c, world, 0, &b);
	assert_int_equal(a.msg.message.reply.result.state.tick, b.msg.message.reply.result.state.tick);
	snc_message_free(&a);
	snc_message_free(&b);

	m = test_command(sinew_v1_ClientMessage_unsubscribe_tag);
	m.command.unsubscribe.subscription_id = sub;
	test_expect(c, &m, 0, NULL);
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_UNKNOWN_SUBSCRIPTION, NULL);
	snc_close(c);
}

static void test_snapshot_restore_reset(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "snapshots", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = create_pgs_world(c, -9.81);
	test_create_body(c, world, 0, 0, 0);
	test_step(c, world, 10);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_snapshot_tag);
	m.command.snapshot.world_id = world;
	m.command.snapshot.make_reset_point = true;
	snc_message snap;
	test_expect(c, &m, 0, &snap);
	assert_true(snap.byte_count > 0);
	assert_int_equal(snap.msg.message.reply.result.snapshot.step_count, 10);
	test_step(c, world, 20);

	// Reset goes back to the reset point (tick 10).
	m = test_command(sinew_v1_ClientMessage_reset_tag);
	m.command.reset.world_id = world;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	assert_int_equal(reply.msg.message.reply.result.step.step_count, 10);
	snc_message_free(&reply);

	// Restore from bytes (sent through a callback-encoded bytes field).
	test_step(c, world, 5);
	m = test_command(sinew_v1_ClientMessage_restore_tag);
	m.command.restore.world_id = world;
	wire_bytes bytes = { snap.bytes, snap.byte_count };
	m.command.restore.data.funcs.encode = wire_encode_bytes;
	m.command.restore.data.arg = &bytes;
	test_expect(c, &m, 0, &reply);
	assert_int_equal(reply.msg.message.reply.result.step.step_count, 10);
	snc_message_free(&reply);
	snc_message_free(&snap);
	snc_close(c);
}

static void test_shutdown_finishes_in_flight_replies(void** state)
{
	(void)state;
	// A server of its own: SIGTERM while a long Step runs; the reply still comes, then the Closing event.
	test_server own;
	// Grace long enough for a slow (sanitizer) build to finish the step.
	static const char* const args[] = { "--shutdown-grace-ms", "60000", NULL };
	test_server_start(&own, args);
	snc_client* c = test_connect(&own, SNC_TCP, "shutdown", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = create_pgs_world(c, -9.81);
	test_create_hinged_chain(c, world, 20);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_step_tag);
	m.command.step.world_id = world;
	m.command.step.count = 2000;
	assert_int_equal(snc_send(c, &m), 0);
	test_sleep_ms(20);
	kill(own.pid, SIGTERM);
	snc_message reply;
	test_wait_for(c, sinew_v1_ServerMessage_reply_tag, &reply);
	assert_int_equal(reply.msg.message.reply.request_id, m.request_id);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("the step was answered %d: %s", (int)snc_reply_code(&reply), snc_reply_text(&reply));
	}
	assert_int_equal(reply.msg.message.reply.result.step.step_count, 2000);
	snc_message_free(&reply);
	char reason[256];
	assert_int_equal(test_wait_closed(c, reason, sizeof(reason)), sinew_v1_ErrorCode_ERR_SHUTTING_DOWN);
	snc_close(c);
	assert_int_equal(test_server_stop(&own), 0);
}

// A supervisor that repeats SIGTERM every 2 ms until the server is gone: the server still shuts down
// cleanly (status 0), however late in its teardown a signal lands.
static void test_repeated_sigterm_exits_cleanly(void** state)
{
	(void)state;
	test_server own;
	test_server_start(&own, NULL);
	snc_client* c = test_connect(&own, SNC_TCP, "repeat", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = create_pgs_world(c, -9.81);
	(void)test_create_body(c, world, 0.5, 0, 0);
	int status = 0, signals = 0;
	pid_t r = 0;
	for (int i = 0; i < 5000 && r != own.pid; ++i) // at most 10 s
	{
		kill(own.pid, SIGTERM);
		signals += 1;
		test_sleep_ms(2);
		r = waitpid(own.pid, &status, WNOHANG);
	}
	snc_close(c);
	print_message("MEASURE SIGTERMs sent before the server exited = %d\n", signals);
	assert_int_equal(r, own.pid);
	own.pid = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
	{
		test_server_dump_log(&own);
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	char path[160];
	snprintf(path, sizeof(path), "%s/ports", own.dir);
	unlink(path);
	unlink(own.log_path);
	rmdir(own.dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handshake_and_ping),
		cmocka_unit_test(test_world_lifecycle),
		cmocka_unit_test(test_bodies_and_every_joint_type),
		cmocka_unit_test(test_step_free_fall),
		cmocka_unit_test(test_forces_and_body_state),
		cmocka_unit_test(test_drive_targets),
		cmocka_unit_test(test_subscribe_and_time_modes),
		cmocka_unit_test(test_snapshot_restore_reset),
		cmocka_unit_test(test_shutdown_finishes_in_flight_replies),
		cmocka_unit_test(test_repeated_sigterm_exits_cleanly),
	};
	return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
