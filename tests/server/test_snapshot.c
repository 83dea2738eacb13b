// Snapshots over the wire: a restored snapshot reproduces the same states bit for bit, a clone steps like
// its original, bad snapshot bytes are refused without touching the world, and a 10,000-body world
// streams and snapshots whole (no silent truncation anywhere).
#include "fixture.h"

#include "wire.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum
{
	ALL = sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_VELOCITIES |
		sinew_v1_Include_INCLUDE_JOINT_POSITIONS | sinew_v1_Include_INCLUDE_JOINT_FORCES
};

// A hanging chain of n hinged links released horizontally (default TGS world).
static uint64_t chain_world(snc_client* c, int n)
{
	uint64_t world = test_create_world(c, "chain");
	uint64_t previous = 0;
	for (int i = 0; i < n; ++i)
	{
		uint64_t b = test_create_body(c, world, 0.25 + 0.5 * i, 0, 0);
		test_create_hinge(c, world, previous, b, previous == 0 ? 0.0 : 0.25, 0, 0, -0.25, 0, 0);
		previous = b;
	}
	return world;
}

static snc_message snapshot(snc_client* c, uint64_t world)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_snapshot_tag;
	m.command.snapshot.world_id = world;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	return reply;
}

// Bit-for-bit equality of two states (bodies and joints in the same order).
static void assert_same_bits(const snc_message* a, const snc_message* b)
{
	assert_int_equal(a->body_count, b->body_count);
	assert_int_equal(a->joint_count, b->joint_count);
	assert_int_equal(a->msg.message.reply.result.state.tick, b->msg.message.reply.result.state.tick);
	for (int i = 0; i < a->body_count; ++i)
	{
		if (memcmp(a->bodies + i, b->bodies + i, sizeof(sinew_v1_BodyState)) != 0)
		{
			fail_msg("body %d differs: x %.17g vs %.17g, vx %.17g vs %.17g", i, a->bodies[i].position.x,
					 b->bodies[i].position.x, a->bodies[i].linear_velocity.x, b->bodies[i].linear_velocity.x);
		}
	}
	for (int i = 0; i < a->joint_count; ++i)
	{
		if (memcmp(a->joints + i, b->joints + i, sizeof(sinew_v1_JointState)) != 0)
		{
			fail_msg("joint %d differs", i);
		}
	}
}

static void test_restore_is_bit_exact(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "snapshots", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = chain_world(c, 12);
	test_step(c, world, 200);
	snc_message snap = snapshot(c, world);
	test_step(c, world, 500);
	snc_message first;
	test_get_state(c, world, ALL, &first);

	assert_int_equal(test_restore(c, world, snap.bytes, snap.byte_count, NULL, 0), 0);
	test_step(c, world, 500);
	snc_message second;
	test_get_state(c, world, ALL, &second);
	assert_same_bits(&first, &second);

	// A clone of the restored state steps exactly like the original (same ids, same bits).
	assert_int_equal(test_restore(c, world, snap.bytes, snap.byte_count, NULL, 0), 0);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_clone_world_tag;
	m.command.clone_world.world_id = world;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	uint64_t clone = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	test_step(c, world, 500);
	test_step(c, clone, 500);
	snc_message third, fourth;
	test_get_state(c, world, ALL, &third);
	test_get_state(c, clone, ALL, &fourth);
	assert_same_bits(&third, &fourth);
	assert_same_bits(&first, &fourth);

	// Garbage and truncated snapshots are refused and leave the world as it was.
	uint8_t junk[300];
	for (size_t i = 0; i < sizeof(junk); ++i)
	{
		junk[i] = (uint8_t)(i * 37 + 11);
	}
	assert_int_equal(test_restore(c, world, junk, sizeof(junk), NULL, 0), sinew_v1_ErrorCode_ERR_BAD_SNAPSHOT);
	assert_int_equal(test_restore(c, world, snap.bytes, snap.byte_count / 2, NULL, 0),
					 sinew_v1_ErrorCode_ERR_BAD_SNAPSHOT);
	assert_int_equal(test_restore(c, world, NULL, 0, NULL, 0), sinew_v1_ErrorCode_ERR_BAD_SNAPSHOT);
	snc_message after;
	test_get_state(c, world, ALL, &after);
	assert_same_bits(&third, &after);

	snc_message_free(&after);
	snc_message_free(&first);
	snc_message_free(&second);
	snc_message_free(&third);
	snc_message_free(&fourth);
	snc_message_free(&snap);
	snc_close(c);
}

static void test_ten_thousand_bodies_whole(void** state)
{
	(void)state;
	const int n = 10000;
	snc_client* c = test_connect(&group_server, SNC_TCP, "big", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "big");
	// Pipelined in batches (the server bounds requests in flight and applies backpressure).
	for (int done = 0; done < n;)
	{
		int batch = n - done < 500 ? n - done : 500;
		for (int i = 0; i < batch; ++i)
		{
			sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
			m.which_command = sinew_v1_ClientMessage_create_body_tag;
			m.command.create_body.world_id = world;
			m.command.create_body.has_body = true;
			m.command.create_body.body.has_pose = true;
			m.command.create_body.body.pose.has_position = true;
			m.command.create_body.body.pose.position.x = done + i;
			assert_int_equal(snc_send(c, &m), 0);
		}
		for (int i = 0; i < batch; ++i)
		{
			snc_message reply;
			test_wait_for(c, sinew_v1_ServerMessage_reply_tag, &reply);
			assert_int_equal(snc_reply_code(&reply), 0);
			snc_message_free(&reply);
		}
		done += batch;
	}
	test_step(c, world, 1);
	snc_message st;
	test_get_state(c, world, sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_VELOCITIES, &st);
	assert_int_equal(st.body_count, n);
	assert_true(st.bodies[n - 1].position.x == n - 1);
	snc_message_free(&st);

	// A subscription's frame carries all of them too.
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_subscribe_tag;
	m.command.subscribe.world_id = world;
	test_expect(c, &m, 0, NULL);
	snc_message frame;
	test_wait_for(c, sinew_v1_ServerMessage_state_tag, &frame);
	assert_int_equal(frame.body_count, n);
	snc_message_free(&frame);

	// And the snapshot round-trips through the wire.
	snc_message snap = snapshot(c, world);
	assert_int_equal(test_restore(c, world, snap.bytes, snap.byte_count, NULL, 0), 0);
	test_get_state(c, world, 0, &st);
	assert_int_equal(st.body_count, n);
	snc_message_free(&st);
	snc_message_free(&snap);
	snc_close(c);
}

// After `command` went to `busy`: another session's `meanwhile` is answered while the command is still at
// work (its reply has not come), then the command's reply comes, a success.
static void assert_answered_meanwhile(snc_client* busy, sinew_v1_ClientMessage* command, snc_client* other,
									  sinew_v1_ClientMessage* meanwhile)
{
	assert_int_equal(snc_send(busy, command), 0);
	struct timespec pause = { 0, 30 * 1000000L }; // the server has read the command by then
	nanosleep(&pause, NULL);
	test_expect(other, meanwhile, 0, NULL);
	// Not a byte of the reply yet (a large reply encoded on the loop would be on its way already, though not
	// whole).
	struct pollfd pending = { .fd = snc_fd(busy), .events = POLLIN };
	assert_int_equal(poll(&pending, 1, 0), 0);
	snc_message early;
	assert_int_not_equal(snc_receive(busy, &early, 0), 0); // nothing yet
	snc_message reply;
	test_wait_for(busy, sinew_v1_ServerMessage_reply_tag, &reply);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("%s", snc_reply_text(&reply));
	}
	snc_message_free(&reply);
}

static void test_rebuilds_leave_the_loop(void** state)
{
	(void)state;
	// Reset, Restore and CloneWorld build a world from a snapshot, and the build makes every triangle
	// mesh's bounding volume hierarchy again. They did that on the event loop, so a world with a large mesh
	// held every client for the whole build at every reset. Now a worker builds it, and another session is
	// answered meanwhile. A 500 x 500 grid of 500,000 triangles (8.5 MB over the wire) takes 0.6-0.7 s
	// to rebuild on a 2-core machine: far more than a ping's round trip.
	enum
	{
#ifdef SINEW_TEST_SANITIZED
		GRID = 200, // the sanitizers make the build about five times slower: 80,000 triangles take as long
#else
		GRID = 500,
#endif
		VERTICES = (GRID + 1) * (GRID + 1),
		TRIANGLES = 2 * GRID * GRID
	};
	double* vertices = malloc(3 * sizeof(double) * VERTICES);
	uint32_t* indices = malloc(3 * sizeof(uint32_t) * TRIANGLES);
	assert_true(vertices != NULL && indices != NULL);
	for (int j = 0; j <= GRID; ++j)
	{
		for (int i = 0; i <= GRID; ++i)
		{
			double* v = vertices + 3 * (j * (GRID + 1) + i);
			v[0] = 0.01 * i;
			v[1] = 0.01 * j;
			v[2] = 0.001 * ((i * 7 + j * 3) % 5); // a rough floor
		}
	}
	for (int j = 0, k = 0; j < GRID; ++j)
	{
		for (int i = 0; i < GRID; ++i)
		{
			uint32_t a = (uint32_t)(j * (GRID + 1) + i), b = a + 1, d = a + GRID + 1, e = d + 1;
			uint32_t quad[6] = { a, b, e, a, e, d };
			memcpy(indices + 6 * k++, quad, sizeof(quad));
		}
	}
	snc_client* c = test_connect(&group_server, SNC_TCP, "terrain", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* other = test_connect(&group_server, SNC_TCP, "bystander", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "terrain");
	snc_shape terrain = snc_shape_mesh(vertices, 3 * VERTICES, indices, 3 * TRIANGLES);
	snc_message reply;
	assert_int_equal(snc_create_shape(c, world, 0, 0, 0, &terrain, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	snc_message_free(&reply);
	free(vertices);
	free(indices);
	sinew_v1_ClientMessage ping = sinew_v1_ClientMessage_init_zero;
	ping.which_command = sinew_v1_ClientMessage_ping_tag;
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_snapshot_tag;
	m.command.snapshot.world_id = world;
	m.command.snapshot.make_reset_point = true;
	snc_message snap;
	test_expect(c, &m, 0, &snap);

	memset(&m, 0, sizeof(m));
	m.which_command = sinew_v1_ClientMessage_reset_tag;
	m.command.reset.world_id = world;
	assert_answered_meanwhile(c, &m, other, &ping);

	memset(&m, 0, sizeof(m));
	m.which_command = sinew_v1_ClientMessage_restore_tag;
	m.command.restore.world_id = world;
	wire_bytes data = { snap.bytes, snap.byte_count };
	m.command.restore.data.funcs.encode = wire_encode_bytes;
	m.command.restore.data.arg = &data;
	assert_answered_meanwhile(c, &m, other, &ping);
	snc_message_free(&snap);

	memset(&m, 0, sizeof(m));
	m.which_command = sinew_v1_ClientMessage_clone_world_tag;
	m.command.clone_world.world_id = world;
	// The clone holds its source only while the snapshot is written: the source's own state is given while
	// the clone builds (an observer cloning cannot pause the owner's world for the build).
	sinew_v1_ClientMessage get = sinew_v1_ClientMessage_init_zero;
	get.which_command = sinew_v1_ClientMessage_get_state_tag;
	get.command.get_state.world_id = world;
	assert_answered_meanwhile(c, &m, other, &get);
	// Each clone in flight holds a snapshot and a worker: a session has at most two, and a third is
	// refused at once (before, any number queued their builds on the workers every world steps on).
	uint64_t ids[3];
	for (int i = 0; i < 3; ++i)
	{
		assert_int_equal(snc_send(c, &m), 0);
		ids[i] = m.request_id;
	}
	int refused = 0, built = 0;
	while (refused + built < 3)
	{
		snc_message r;
		test_wait_for(c, sinew_v1_ServerMessage_reply_tag, &r);
		if (snc_reply_code(&r) == sinew_v1_ErrorCode_ERR_LIMIT_REACHED)
		{
			assert_int_equal(r.msg.message.reply.request_id, ids[2]);
			assert_non_null(strstr(snc_reply_text(&r), "clones are being built"));
			assert_int_equal(built, 0);
			refused += 1;
		}
		else
		{
			assert_int_equal(snc_reply_code(&r), 0);
			built += 1;
		}
		snc_message_free(&r);
	}
	assert_int_equal(refused, 1);
	snc_close(other);
	snc_close(c);
}

static void test_large_description_leaves_the_loop(void** state)
{
	(void)state;
	// DescribeWorld's reply has one ShapeInfo per shape. For tens of thousands of shapes it is several MB,
	// and encoding it held the loop (0.2-0.3 s at 32,768 shapes, measured before). Past 4,096 shapes and
	// links a worker encodes it while the world is held, and another session is answered meanwhile.
	enum
	{
		BODIES = 128,
		SHAPES_PER_BODY = 256 // max_shapes_per_body
	};
	snc_client* c = test_connect(&group_server, SNC_TCP, "describer", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* other = test_connect(&group_server, SNC_TCP, "bystander", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "many shapes");
	snc_shape balls[SHAPES_PER_BODY];
	for (int i = 0; i < SHAPES_PER_BODY; ++i)
	{
		balls[i] = snc_shape_sphere(0.01 + 0.0001 * i);
	}
	for (int b = 0; b < BODIES; ++b)
	{
		sinew_v1_BodyDef body = sinew_v1_BodyDef_init_zero;
		body.type = sinew_v1_BodyType_BODY_STATIC;
		body.has_pose = true;
		body.pose.has_position = true;
		body.pose.position.x = b;
		body.pose.has_rotation = true;
		body.pose.rotation.w = 1.0;
		snc_message reply;
		assert_int_equal(snc_create_body(c, world, &body, balls, SHAPES_PER_BODY, NULL, &reply, TEST_TIMEOUT_MS), 0);
		if (snc_reply_code(&reply) != 0)
		{
			fail_msg("%s", snc_reply_text(&reply));
		}
		snc_message_free(&reply);
	}
	sinew_v1_ClientMessage ping = sinew_v1_ClientMessage_init_zero;
	ping.which_command = sinew_v1_ClientMessage_ping_tag;
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_describe_world_tag;
	m.command.describe_world.world_id = world;
	const char* counted = "command=\"describe_world\",code=\"OK\"";
	const double described = test_metric(&group_server, "sinew_commands_total", counted);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_answered_meanwhile(c, &m, other, &ping);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	// Counted as the commands answered on the loop are.
	assert_true(test_metric(&group_server, "sinew_commands_total", counted) == (described > 0 ? described : 0) + 1);
	print_message("DescribeWorld of %d shapes: %.0f ms\n", BODIES * SHAPES_PER_BODY,
				  1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec));
	// A small description is still answered at once, and both carry every shape.
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	assert_int_equal(reply.shape_info_count, BODIES * SHAPES_PER_BODY);
	snc_message_free(&reply);
	uint64_t small = test_create_world(c, "few shapes");
	assert_int_equal(snc_create_body(c, small, NULL, balls, 3, NULL, &reply, TEST_TIMEOUT_MS), 0);
	snc_message_free(&reply);
	m.command.describe_world.world_id = small;
	test_expect(c, &m, 0, &reply);
	assert_int_equal(reply.shape_info_count, 3);
	snc_message_free(&reply);
	snc_close(other);
	snc_close(c);
}

static void test_reconfigured_step_leaves_the_loop(void** state)
{
	(void)state;
	// A step measured cheap runs on the event loop. ConfigureWorld can make the next one cost seconds
	// (more substeps and iterations): that one must go to a worker. The loop judges from its cached copy of
	// the world's settings, so this holds only while ConfigureWorld refreshes that copy.
	snc_client* c = test_connect(&group_server, SNC_TCP, "tuner", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* other = test_connect(&group_server, SNC_TCP, "bystander", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "tuned");
	test_create_hinged_chain(c, world, 2);
	for (int i = 0; i < 20; ++i)
	{
		// Measured: a few microseconds once warm (the first step's cost fades from the average), within
		// the loop's budget, so these run on the loop.
		test_step(c, world, 1);
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_configure_world_tag;
	m.command.configure_world.world_id = world;
	m.command.configure_world.has_settings = true;
	m.command.configure_world.settings.has_substeps = true;
#ifdef SINEW_TEST_SANITIZED
	m.command.configure_world.settings.substeps = 300; // the sanitizers are 3 to 20 times slower
#else
	m.command.configure_world.settings.substeps = 1000; // about 0.15 s (release): far above a ping
#endif
	m.command.configure_world.settings.has_position_iterations = true;
	m.command.configure_world.settings.position_iterations = 100;
	test_expect(c, &m, 0, NULL);
	sinew_v1_ClientMessage ping = sinew_v1_ClientMessage_init_zero;
	ping.which_command = sinew_v1_ClientMessage_ping_tag;
	memset(&m, 0, sizeof(m));
	m.which_command = sinew_v1_ClientMessage_step_tag;
	m.command.step.world_id = world;
	m.command.step.count = 1;
	assert_answered_meanwhile(c, &m, other, &ping);
	snc_close(other);
	snc_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restore_is_bit_exact),
		cmocka_unit_test(test_ten_thousand_bodies_whole),
		cmocka_unit_test(test_rebuilds_leave_the_loop),
		cmocka_unit_test(test_large_description_leaves_the_loop),
		cmocka_unit_test(test_reconfigured_step_leaves_the_loop),
	};
	return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
