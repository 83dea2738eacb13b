// Robot models over the wire: LoadUrdf sends URDF text and gets back where every link, joint, mimic joint
// and visual went; the mimic sign survives the trip; a bad model gives the importer's typed error with its
// file, line and element and changes nothing; and sinewd started without --no-demo hosts the demo robot
// in real time, moving, with its gripper's fingers coupled.
#include "fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char* read_text(const char* path, size_t* size)
{
	FILE* f = fopen(path, "rb");
	assert_non_null(f);
	char* text = malloc(1 << 20);
	assert_non_null(text);
	*size = fread(text, 1, 1 << 20, f);
	fclose(f);
	return text;
}

static int32_t load(snc_client* c, const snc_urdf_request* r, snc_message* reply)
{
	int err = snc_load_urdf(c, r, reply, TEST_TIMEOUT_MS);
	assert_int_equal(err, 0);
	return snc_reply_code(reply);
}

static const sinew_v1_UrdfJoint* joint_named(const snc_message* m, const char* name)
{
	for (int i = 0; i < m->urdf_joint_count; ++i)
	{
		if (strcmp(m->urdf_joints[i].name, name) == 0)
		{
			return m->urdf_joints + i;
		}
	}
	fail_msg("no joint %s in the reply", name);
	return NULL;
}

static const sinew_v1_ArticulationState* articulation_of(const snc_message* m, uint64_t id)
{
	for (int i = 0; i < m->articulation_count; ++i)
	{
		if (m->articulations[i].id == id)
		{
			return m->articulations + i;
		}
	}
	fail_msg("articulation %llu not in the frame", (unsigned long long)id);
	return NULL;
}

static void test_load_gripper(void** state)
{
	(void)state;
	test_server server;
	test_server_start(&server, NULL);
	snc_client* c = test_connect(&server, SNC_TCP, "urdf", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "gripper");
	size_t size = 0;
	char* text = read_text(SINEW_TEST_URDF_DIR "/gripper.urdf", &size);
	sinew_v1_JointValue initial = sinew_v1_JointValue_init_zero;
	snprintf(initial.joint, sizeof(initial.joint), "wrist");
	initial.value = 0.6;
	snc_urdf_request r;
	memset(&r, 0, sizeof(r));
	r.world_id = world;
	r.urdf = text;
	r.urdf_size = size;
	r.file_name = "gripper.urdf";
	r.initial = &initial;
	r.initial_count = 1;
	snc_message reply;
	assert_int_equal(load(c, &r, &reply), 0);
	const sinew_v1_UrdfModel* u = &reply.msg.message.reply.result.urdf;
	assert_int_equal(reply.msg.message.reply.which_result, sinew_v1_Reply_urdf_tag);
	assert_string_equal(u->robot_name, "gripper");
	assert_int_equal(u->dof_count, 4);
	assert_int_equal(u->link_count, 5);
	assert_int_equal(reply.urdf_link_count, 5);
	assert_int_equal(reply.urdf_joint_count, 4);
	assert_int_equal(reply.urdf_visual_count, 1);
	const sinew_v1_UrdfJoint* wrist = joint_named(&reply, "wrist");
	const sinew_v1_UrdfJoint* right = joint_named(&reply, "finger_right_joint");
	const sinew_v1_UrdfJoint* thumb = joint_named(&reply, "thumb_joint");
	assert_string_equal(wrist->type, "revolute");
	assert_int_equal(wrist->dof, 0);
	assert_true(wrist->mimic_id == 0);
	assert_true(right->mimic_id != 0 && thumb->mimic_id != 0);
	assert_string_equal(thumb->mimic_of, "wrist");
	assert_true(thumb->multiplier == -0.5 && thumb->offset == 0.1);
	assert_string_equal(right->mimic_of, "finger_left_joint");
	assert_true(reply.urdf_visuals[0].geometry == sinew_v1_GeometryType_GEOMETRY_BOX);
	assert_true(reply.urdf_visuals[0].rgba_count == 4 && reply.urdf_visuals[0].rgba[0] == 0.2);
	uint64_t art = u->articulation_id;
	int thumb_dof = thumb->dof, wrist_dof = wrist->dof;
	snc_message_free(&reply);

	// The mimic sign: thumb = -0.5 wrist + 0.1, from the start and after stepping.
	test_step(c, world, 200);
	snc_message st;
	test_get_state(c, world, sinew_v1_Include_INCLUDE_JOINT_POSITIONS, &st);
	const sinew_v1_ArticulationState* a = articulation_of(&st, art);
	assert_int_equal(a->position_count, 4);
	double qw = a->position[wrist_dof], qt = a->position[thumb_dof];
	assert_true(fabs(qw - 0.6) < 0.1);
	// A hard mimic row holds to rounding (the articulation tests bound it at 1e-12).
	assert_near(qt, -0.5 * qw + 0.1, 1e-12, "the URDF relation, over the wire");
	snc_message_free(&st);

	free(text);
	snc_close(c);
	assert_int_equal(test_server_stop(&server), 0);
}

static void test_warnings(void** state)
{
	(void)state;
	// What the importer ignored or did not use comes back with the reply, one line each.
	test_server server;
	test_server_start(&server, NULL);
	snc_client* c = test_connect(&server, SNC_TCP, "urdf", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "forgiving");
	size_t size = 0;
	char* text = read_text(SINEW_TEST_URDF_DIR "/forgiving.urdf", &size);
	snc_urdf_request r;
	memset(&r, 0, sizeof(r));
	r.world_id = world;
	r.urdf = text;
	r.urdf_size = size;
	r.file_name = "forgiving.urdf";
	snc_message reply;
	assert_int_equal(load(c, &r, &reply), 0);
	assert_int_equal(reply.urdf_warning_count, 2);
	assert_non_null(strstr(reply.urdf_warnings[0], "forgiving.urdf:25: <joint name=\"tool_frame\">: <mimic"));
	assert_non_null(strstr(reply.urdf_warnings[1], "welded to the world"));
	snc_message_free(&reply);
	free(text);
	snc_close(c);
	assert_int_equal(test_server_stop(&server), 0);
}

static void test_bad_models(void** state)
{
	(void)state;
	test_server server;
	test_server_start(&server, NULL);
	snc_client* c = test_connect(&server, SNC_TCP, "urdf", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "bad");
	snc_urdf_request r;
	memset(&r, 0, sizeof(r));
	r.world_id = world;
	r.file_name = "bad.urdf";
	snc_message reply;

	// A joint whose parent is missing: TOPOLOGY, with the file, the line and the element.
	const char* missing = "<robot name=\"r\">\n<link name=\"a\"/>\n<joint name=\"j\" type=\"fixed\">\n"
						  "<parent link=\"nope\"/><child link=\"a\"/></joint>\n</robot>\n";
	r.urdf = missing;
	r.urdf_size = strlen(missing);
	assert_int_equal(load(c, &r, &reply), sinew_v1_ErrorCode_ERR_TOPOLOGY);
	assert_non_null(strstr(snc_reply_text(&reply), "bad.urdf:4:"));
	assert_non_null(strstr(snc_reply_text(&reply), "<joint name=\"j\">"));
	assert_non_null(strstr(snc_reply_text(&reply), "parent link \"nope\" is not defined"));
	snc_message_free(&reply);

	// Not XML at all, and nothing.
	r.urdf = "\x00\x01garbage";
	r.urdf_size = 9;
	assert_int_equal(load(c, &r, &reply), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	snc_message_free(&reply);
	r.urdf_size = 0;
	assert_int_equal(load(c, &r, &reply), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	snc_message_free(&reply);

	// A good model with a drive for a joint it does not have.
	size_t size = 0;
	char* text = read_text(SINEW_TEST_URDF_DIR "/double_pendulum.urdf", &size);
	r.urdf = text;
	r.urdf_size = size;
	sinew_v1_JointDrive drive = sinew_v1_JointDrive_init_zero;
	snprintf(drive.joint, sizeof(drive.joint), "knee");
	drive.has_drive = true;
	drive.drive.enabled = true;
	drive.drive.stiffness = 10.0;
	r.drives = &drive;
	r.drive_count = 1;
	assert_int_equal(load(c, &r, &reply), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(snc_reply_text(&reply), "drive for joint \"knee\""));
	snc_message_free(&reply);

	// Nothing was created by any of them.
	test_get_state(c, world, 0, &reply);
	assert_int_equal(reply.articulation_count, 0);
	snc_message_free(&reply);

	// An observer of the world cannot load into it.
	snc_client* o = test_connect(&server, SNC_TCP, "observer", sinew_v1_Role_ROLE_OBSERVER);
	r.drive_count = 0;
	assert_int_equal(load(o, &r, &reply), sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE);
	snc_message_free(&reply);
	snc_close(o);

	free(text);
	snc_close(c);
	assert_int_equal(test_server_stop(&server), 0);
}

// sinewd without --no-demo: the demo world hosts the arm in real time and moves it; a client that sets a
// target takes the controls, and Reset gives the motion back.
static void test_demo_world(void** state)
{
	(void)state;
	test_server server;
	static const char* const args[] = { TEST_WITH_DEMO, NULL };
	test_server_start(&server, args);
	snc_client* c = test_connect(&server, SNC_TCP, "viewer", sinew_v1_Role_ROLE_OBSERVER);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_list_worlds_tag;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	assert_int_equal(reply.world_count, 1);
	assert_string_equal(reply.worlds[0].name, "demo");
	assert_true(reply.worlds[0].mode == sinew_v1_TimeMode_TIME_REALTIME);
	assert_int_equal(reply.worlds[0].articulation_count, 1);
	uint64_t world = reply.worlds[0].world_id;
	snc_message_free(&reply);

	snc_message first, second;
	test_get_state(c, world, sinew_v1_Include_INCLUDE_JOINT_POSITIONS, &first);
	test_sleep_ms(500);
	test_get_state(c, world, sinew_v1_Include_INCLUDE_JOINT_POSITIONS, &second);
	assert_int_equal(first.articulation_count, 1);
	const sinew_v1_ArticulationState* a = first.articulations;
	const sinew_v1_ArticulationState* b = second.articulations;
	// Seven arm joints and the two fingers (the right one a mimic follower).
	assert_int_equal(a->position_count, 9);
	assert_true(second.msg.message.reply.result.state.time > first.msg.message.reply.result.state.time);
	double moved = 0.0;
	for (int i = 0; i < 9; ++i)
	{
		moved = fmax(moved, fabs(b->position[i] - a->position[i]));
	}
	// The pick-and-place never stands still for 0.5 s: its holds (the gripper closing, opening) last 0.3 s,
	// and the fingers move 15 mm as each begins; around them the arm lifts or lowers by tenths of a radian.
	assert_true(moved > 0.01);
	assert_near(b->position[8], b->position[7], 1e-12, "the fingers are coupled by a hard mimic row");
	const uint64_t arm = a->id;
	snc_message_free(&first);
	snc_message_free(&second);

	// A client takes the controls: joint2's target, and the arm stops where it is.
	snc_client* owner = test_connect(&server, SNC_TCP, "owner", sinew_v1_Role_ROLE_CONTROLLER);
	test_join(owner, world, sinew_v1_Role_ROLE_OWNER);
	m = test_command(sinew_v1_ClientMessage_set_drive_targets_tag);
	m.command.set_drive_targets.world_id = world;
	m.command.set_drive_targets.has_articulation = true;
	m.command.set_drive_targets.articulation.articulation_id = arm;
	m.command.set_drive_targets.articulation.dofs_count = 1;
	m.command.set_drive_targets.articulation.dofs[0] = 1; // joint2
	m.command.set_drive_targets.articulation.positions_count = 1;
	m.command.set_drive_targets.articulation.positions[0] = 0.4;
	test_expect(owner, &m, 0, NULL);
	test_sleep_ms(1000);
	const uint32_t everything = sinew_v1_Include_INCLUDE_JOINT_POSITIONS | sinew_v1_Include_INCLUDE_POSES;
	test_get_state(c, world, everything, &first);
	test_sleep_ms(500);
	test_get_state(c, world, everything, &second);
	a = first.articulations;
	b = second.articulations;
	// The drives (critically damped at 200 rad/s) settle within a second: joint2 at its target, and over
	// 0.5 s nothing moves by more than 1e-3 rad (the demo motion would move tenths).
	assert_near(b->position[1], 0.4, 0.01, "joint2 at the client's target");
	for (int i = 0; i < 7; ++i)
	{
		assert_near(b->position[i], a->position[i], 1e-3, "the demo motion stands by");
	}
	snc_message_free(&first);
	snc_message_free(&second);

	// Reset gives the motion back, from its start: the box (the second body: the table is the first) at
	// site 0 on the table, (0.55, 0.2, 0.325) m, and the arm moving again.
	m = test_command(sinew_v1_ClientMessage_reset_tag);
	m.command.reset.world_id = world;
	test_expect(owner, &m, 0, NULL);
	test_get_state(c, world, everything, &first);
	assert_true(first.msg.message.reply.result.state.time < 0.5);
	assert_int_equal(first.body_count, 2);
	assert_near(first.bodies[1].position.x, 0.55, 1e-3, "the box at site 0 after a reset");
	assert_near(first.bodies[1].position.y, 0.2, 1e-3, "the box at site 0 after a reset");
	assert_near(first.bodies[1].position.z, 0.325, 1e-3, "the box on the table after a reset");
	test_sleep_ms(500);
	test_get_state(c, world, everything, &second);
	moved = 0.0;
	for (int i = 0; i < 9; ++i)
	{
		moved = fmax(moved, fabs(second.articulations->position[i] - first.articulations->position[i]));
	}
	assert_true(moved > 0.01);
	snc_message_free(&first);
	snc_message_free(&second);
	snc_close(owner);
	snc_close(c);
	assert_int_equal(test_server_stop(&server), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_gripper),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_bad_models),
		cmocka_unit_test(test_demo_world),
	};
	test_failures_to_cmocka(); // each test starts its own sinewd
	return cmocka_run_group_tests(tests, NULL, NULL);
}
