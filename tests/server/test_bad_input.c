// Bad input against a real sinewd: random bytes, truncated frames, oversize length prefixes, unknown
// commands, stale ids, NaN and infinite numbers, messages before the handshake, a wrong version, a
// missing token, limits. Each gets a typed error or a close with a reason; the server stays up and serves
// the other clients; and it exits cleanly (leak-free under ASan) at the end.
#include "fixture.h"

#include "wire.h"

#include <pb_encode.h>

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static snc_client* witness; // a client that must keep being served throughout

static int setup(void** state)
{
	(void)state;
	// Small limits so that reaching them is cheap.
	static const char* const args[] = { "--max-message-bytes",
										"65536",
										"--max-worlds-per-client",
										"3",
										"--max-bodies-per-world",
										"4",
										"--handshake-timeout-ms",
										"300",
										"--max-requests-in-flight",
										"4",
										NULL };
	test_group_start(args);
	witness = test_connect(&group_server, SNC_TCP, "witness", sinew_v1_Role_ROLE_CONTROLLER);
	return 0;
}

static int teardown(void** state)
{
	(void)state;
	snc_close(witness);
	return test_group_teardown(state);
}

// The witness still gets answers: the server is up and serving others.
static void assert_still_serving(void)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_ping_tag);
	test_expect(witness, &m, 0, NULL);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t random_byte(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

static void test_random_bytes_before_handshake(void** state)
{
	(void)state;
	for (int round = 0; round < 20; ++round)
	{
		snc_client* c = test_connect_raw(&group_server, round % 2 == 0 ? SNC_TCP : SNC_WS);
		uint8_t junk[512];
		for (size_t i = 0; i < sizeof(junk); ++i)
		{
			junk[i] = random_byte();
		}
		snc_send_raw(c, junk, sizeof(junk));
		char reason[256];
		int32_t code = test_wait_closed(c, reason, sizeof(reason));
		// Any reason will do, as long as it is typed and the connection is closed with it.
		assert_true(code != 0);
		snc_close(c);
	}
	assert_still_serving();
}

static void test_random_messages_after_handshake(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "fuzzy", sinew_v1_Role_ROLE_CONTROLLER);
	// Well-framed messages with random contents: each is answered (whatever it decodes to), the
	// connection stays open.
	for (int i = 0; i < 200; ++i)
	{
		uint8_t frame[80];
		size_t size = 1 + random_byte() % 64;
		size_t n = wire_varint_put(frame, size);
		for (size_t k = 0; k < size; ++k)
		{
			frame[n + k] = random_byte();
		}
		assert_int_equal(snc_send_raw(c, frame, n + size), 0);
	}
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_ping_tag);
	m.request_id = 0xfeedbeefull;
	assert_int_equal(snc_send(c, &m), 0);
	for (;;)
	{
		snc_message reply;
		test_wait_for(c, sinew_v1_ServerMessage_reply_tag, &reply);
		bool done = reply.msg.message.reply.request_id == 0xfeedbeefull;
		snc_message_free(&reply);
		if (done)
		{
			break;
		}
	}
	snc_close(c);
	assert_still_serving();
}

static void test_truncated_frames(void** state)
{
	(void)state;
	// A length prefix promising more than ever comes, then the client goes away mid-frame.
	snc_client* c = test_connect(&group_server, SNC_TCP, "truncated", sinew_v1_Role_ROLE_CONTROLLER);
	uint8_t partial[12] = { 100, 8, 1, 2, 3 };
	snc_send_raw(c, partial, sizeof(partial));
	snc_close(c);
	assert_still_serving();

	// A whole frame whose protobuf is cut short: BAD_MESSAGE, the session goes on.
	c = test_connect(&group_server, SNC_TCP, "cut", sinew_v1_Role_ROLE_CONTROLLER);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	m.request_id = 77;
	snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "a name long enough to cut");
	uint8_t* bytes = NULL;
	size_t size = 0;
	assert_true(wire_encode_alloc(sinew_v1_ClientMessage_fields, &m, WIRE_VARINT_MAX, &bytes, &size));
	size_t half = size / 2;
	uint8_t frame[256];
	size_t p = wire_varint_put(frame, half);
	memcpy(frame + p, bytes + WIRE_VARINT_MAX, half);
	free(bytes);
	snc_send_raw(c, frame, p + half);
	snc_message reply;
	test_wait_for(c, sinew_v1_ServerMessage_reply_tag, &reply);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_BAD_MESSAGE);
	snc_message_free(&reply);
	m = test_command(sinew_v1_ClientMessage_ping_tag);
	test_expect(c, &m, 0, NULL);
	snc_close(c);
}

static void test_oversize_and_malformed_prefix(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "oversize", sinew_v1_Role_ROLE_CONTROLLER);
	uint8_t prefix[WIRE_VARINT_MAX];
	size_t n = wire_varint_put(prefix, 65537); // max_message_bytes + 1
	snc_send_raw(c, prefix, n);
	char reason[256];
	assert_int_equal(test_wait_closed(c, reason, sizeof(reason)), sinew_v1_ErrorCode_ERR_MESSAGE_TOO_LARGE);
	assert_non_null(strstr(reason, "max_message_bytes"));
	snc_close(c);

	// A varint that never ends.
	c = test_connect(&group_server, SNC_TCP, "malformed", sinew_v1_Role_ROLE_CONTROLLER);
	uint8_t endless[11];
	memset(endless, 0xff, sizeof(endless));
	snc_send_raw(c, endless, sizeof(endless));
	assert_int_equal(test_wait_closed(c, NULL, 0), sinew_v1_ErrorCode_ERR_BAD_MESSAGE);
	snc_close(c);

	// A WebSocket message above the limit.
	c = test_connect(&group_server, SNC_WS, "ws-oversize", sinew_v1_Role_ROLE_CONTROLLER);
	uint8_t* big = calloc(1, 70000);
	snc_send_raw(c, big, 70000);
	free(big);
	assert_int_equal(test_wait_closed(c, NULL, 0), sinew_v1_ErrorCode_ERR_MESSAGE_TOO_LARGE);
	snc_close(c);
	assert_still_serving();
}

static void test_unknown_command(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "unknown", sinew_v1_Role_ROLE_CONTROLLER);
	// No command at all.
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_UNKNOWN_COMMAND, NULL);
	// A field number this server does not know (a newer client's command): request id 5, field 99.
	uint8_t frame[16];
	uint8_t body[] = { 0x08, 0x05, 0x9a, 0x06, 0x00 }; // request_id = 5; field 99 (length 0)
	size_t p = wire_varint_put(frame, sizeof(body));
	memcpy(frame + p, body, sizeof(body));
	snc_send_raw(c, frame, p + sizeof(body));
	snc_message reply;
	test_wait_for(c, sinew_v1_ServerMessage_reply_tag, &reply);
	assert_int_equal(reply.msg.message.reply.request_id, 5);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_UNKNOWN_COMMAND);
	snc_message_free(&reply);
	// A second handshake.
	m = test_command(sinew_v1_ClientMessage_handshake_tag);
	m.command.handshake.protocol_version = 1;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_ALREADY_HANDSHAKEN, NULL);
	snc_close(c);
}

static void test_unknown_and_stale_ids(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "stale", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "stale");
	uint64_t body = test_create_body(c, world, 0, 0, 0);
	uint64_t other = test_create_body(c, world, 1, 0, 0);
	uint64_t joint = test_create_hinge(c, world, body, other, 0.5, 0, 0, -0.5, 0, 0);
	// Destroy, then use the old ids.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_destroy_joint_tag);
	m.command.destroy_joint.world_id = world;
	m.command.destroy_joint.joint_id = joint;
	test_expect(c, &m, 0, NULL);
	m = test_command(sinew_v1_ClientMessage_destroy_body_tag);
	m.command.destroy_body.world_id = world;
	m.command.destroy_body.body_id = body;
	test_expect(c, &m, 0, NULL);
	// A new body may reuse the slot; the old id must still be refused.
	test_create_body(c, world, 2, 0, 0);
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	m = test_command(sinew_v1_ClientMessage_set_drive_targets_tag);
	m.command.set_drive_targets.world_id = world;
	m.command.set_drive_targets.joints_count = 1;
	m.command.set_drive_targets.joints[0].joint_id = joint;
	m.command.set_drive_targets.joints[0].axis = sinew_v1_Axis_AXIS_RX;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	m = test_command(sinew_v1_ClientMessage_create_joint_tag);
	m.command.create_joint.world_id = world;
	m.command.create_joint.has_base = true;
	m.command.create_joint.base.body_b = body; // stale
	m.command.create_joint.which_type = sinew_v1_CreateJoint_fixed_tag;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	// An id of another world's body is not an id of this one.
	uint64_t elsewhere = test_create_world(c, "elsewhere");
	uint64_t foreign = test_create_body(c, elsewhere, 0, 0, 0);
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_destroy_body_tag;
	m.command.destroy_body.world_id = world;
	m.command.destroy_body.body_id = foreign;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	m.command.destroy_body.world_id = elsewhere;
	test_expect(c, &m, 0, NULL);
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_destroy_world_tag;
	m.command.destroy_world.world_id = elsewhere;
	test_expect(c, &m, 0, NULL);
	// Ids that never existed (including garbage bit patterns).
	m = test_command(sinew_v1_ClientMessage_apply_forces_tag);
	m.command.apply_forces.world_id = world;
	m.command.apply_forces.bodies_count = 1;
	m.command.apply_forces.bodies[0].body_id = 0xffffffffffffffffull;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ID, NULL);
	m = test_command(sinew_v1_ClientMessage_step_tag);
	m.command.step.world_id = 0x123456789ull;
	m.command.step.count = 1;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_UNKNOWN_WORLD, NULL);
	m = test_command(sinew_v1_ClientMessage_unsubscribe_tag);
	m.command.unsubscribe.subscription_id = 42;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_UNKNOWN_SUBSCRIPTION, NULL);
	// A destroyed world's id.
	m = test_command(sinew_v1_ClientMessage_destroy_world_tag);
	m.command.destroy_world.world_id = world;
	test_expect(c, &m, 0, NULL);
	m = test_command(sinew_v1_ClientMessage_get_state_tag);
	m.command.get_state.world_id = world;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_UNKNOWN_WORLD, NULL);
	snc_close(c);
}

static void test_not_finite_numbers(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "nan", sinew_v1_Role_ROLE_CONTROLLER);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	m.command.create_world.has_settings = true;
	m.command.create_world.settings.has_gravity = true;
	m.command.create_world.settings.gravity.z = INFINITY;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_NOT_FINITE, NULL);
	m.command.create_world.settings.gravity.z = -9.81;
	m.command.create_world.settings.has_time_step = true;
	m.command.create_world.settings.time_step = NAN;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_NOT_FINITE, NULL);
	m.command.create_world.settings.has_time_step = false;
	m.command.create_world.has_time = true;
	m.command.create_world.time.has_rate = true;
	m.command.create_world.time.rate = INFINITY;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_NOT_FINITE, NULL);

	uint64_t world = test_create_world(c, "finite");
	m = test_command(sinew_v1_ClientMessage_create_body_tag);
	m.command.create_body.world_id = world;
	m.command.create_body.has_body = true;
	m.command.create_body.body.has_pose = true;
	m.command.create_body.body.pose.has_position = true;
	m.command.create_body.body.pose.position.y = NAN;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_NOT_FINITE, NULL);
	m.command.create_body.body.pose.position.y = 0;
	m.command.create_body.body.has_mass = true;
	m.command.create_body.body.mass = -INFINITY;
	snc_message refused;
	int32_t code = test_request(c, &m, &refused);
	snc_message_free(&refused);
	assert_true(code == sinew_v1_ErrorCode_ERR_NOT_FINITE || code == sinew_v1_ErrorCode_ERR_NON_POSITIVE_MASS);
	// A zero quaternion.
	m.command.create_body.body.has_mass = false;
	m.command.create_body.body.pose.has_rotation = true;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_ZERO_AXIS, NULL);

	uint64_t body = test_create_body(c, world, 0, 0, 0);
	m = test_command(sinew_v1_ClientMessage_subscribe_tag);
	m.command.subscribe.world_id = world;
	m.command.subscribe.rate_hz = NAN;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_NOT_FINITE, NULL);
	m = test_command(sinew_v1_ClientMessage_set_body_state_tag);
	m.command.set_body_state.world_id = world;
	m.command.set_body_state.body_id = body;
	m.command.set_body_state.has_angular_velocity = true;
	m.command.set_body_state.angular_velocity.x = -INFINITY;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_NOT_FINITE, NULL);
	// Nothing was created or changed by the refused commands.
	snc_message st;
	test_get_state(c, world, sinew_v1_Include_INCLUDE_VELOCITIES, &st);
	assert_int_equal(st.body_count, 1);
	assert_true(st.bodies[0].angular_velocity.x == 0.0);
	snc_message_free(&st);
	snc_close(c);
}

static void test_before_handshake_and_wrong_version(void** state)
{
	(void)state;
	snc_client* c = test_connect_raw(&group_server, SNC_TCP);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_ping_tag);
	snc_message reply;
	assert_int_equal(snc_request(c, &m, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_NOT_HANDSHAKEN);
	snc_message_free(&reply);
	assert_int_equal(test_wait_closed(c, NULL, 0), sinew_v1_ErrorCode_ERR_NOT_HANDSHAKEN);
	snc_close(c);

	c = test_connect_raw(&group_server, SNC_WS);
	m = test_command(sinew_v1_ClientMessage_handshake_tag);
	m.command.handshake.protocol_version = 2;
	snc_send(c, &m);
	test_wait_for(c, sinew_v1_ServerMessage_handshake_tag, &reply);
	assert_int_equal(reply.msg.message.handshake.status.code, sinew_v1_ErrorCode_ERR_WRONG_VERSION);
	assert_non_null(strstr(reply.msg.message.handshake.status.message, "version"));
	snc_message_free(&reply);
	assert_int_equal(test_wait_closed(c, NULL, 0), sinew_v1_ErrorCode_ERR_WRONG_VERSION);
	snc_close(c);

	// A connection that never shakes hands is closed after handshake_timeout_ms.
	c = test_connect_raw(&group_server, SNC_TCP);
	assert_int_equal(test_wait_closed(c, NULL, 0), sinew_v1_ErrorCode_ERR_TIMEOUT);
	snc_close(c);
	assert_still_serving();
}

static void test_token(void** state)
{
	(void)state;
	test_server guarded;
	static const char* const args[] = { "--token", "s3cret", NULL };
	test_server_start(&guarded, args);
	const char* tokens[] = { NULL, "wrong", "s3cre", "s3cret" };
	for (int i = 0; i < 4; ++i)
	{
		snc_client* c = test_connect_raw(&guarded, SNC_TCP);
		sinew_v1_HandshakeReply hr;
		int err = snc_handshake(c, "token", tokens[i], sinew_v1_Role_ROLE_CONTROLLER, &hr);
		if (i < 3)
		{
			assert_int_equal(err, SNC_REFUSED);
			assert_int_equal(hr.status.code, sinew_v1_ErrorCode_ERR_UNAUTHORISED);
			assert_int_equal(test_wait_closed(c, NULL, 0), sinew_v1_ErrorCode_ERR_UNAUTHORISED);
		}
		else
		{
			assert_int_equal(err, 0);
		}
		snc_close(c);
	}
	assert_int_equal(test_server_stop(&guarded), 0);
}

static void test_limits(void** state)
{
	(void)state;
	snc_client* c = test_connect(&group_server, SNC_TCP, "limits", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t worlds[3];
	for (int i = 0; i < 3; ++i)
	{
		char name[16];
		snprintf(name, sizeof(name), "quota-%d", i); // names are unique on a server
		worlds[i] = test_create_world(c, name);
	}
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	snc_message reply;
	assert_int_equal(test_request(c, &m, &reply), sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	assert_non_null(strstr(snc_reply_text(&reply), "max_worlds_per_client"));
	snc_message_free(&reply);
	for (int i = 0; i < 4; ++i)
	{
		test_create_body(c, worlds[0], i, 0, 0);
	}
	m = test_command(sinew_v1_ClientMessage_create_body_tag);
	m.command.create_body.world_id = worlds[0];
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_LIMIT_REACHED, NULL);
	snc_close(c);
	// More requests in flight than the limit, on both transports: the server stops reading and answers
	// them all, in order.
	for (int t = 0; t < 2; ++t)
	{
		c = test_connect(&group_server, t == 0 ? SNC_TCP : SNC_WS, "pipeline", sinew_v1_Role_ROLE_CONTROLLER);
		for (int i = 0; i < 300; ++i)
		{
			m = test_command(sinew_v1_ClientMessage_ping_tag);
			m.request_id = 1000 + (uint64_t)i;
			assert_int_equal(snc_send(c, &m), 0);
		}
		for (int i = 0; i < 300; ++i)
		{
			test_wait_for(c, sinew_v1_ServerMessage_reply_tag, &reply);
			assert_int_equal(reply.msg.message.reply.request_id, 1000 + (uint64_t)i);
			assert_int_equal(snc_reply_code(&reply), 0);
			snc_message_free(&reply);
		}
		snc_close(c);
	}
	assert_still_serving();
}

// A message of `size` bytes that is not a ClientMessage: over TCP (ws false) only its first `sent` bytes, with
// the length prefix of the whole; over WebSocket, which frames whole messages, a message of `sent` bytes.
static void send_junk(snc_client* c, bool ws, size_t size, size_t sent)
{
	uint8_t* frame = malloc(WIRE_VARINT_MAX + sent);
	assert_non_null(frame);
	const size_t n = ws ? 0 : wire_varint_put(frame, size);
	memset(frame + n, 0x5a, sent);
	assert_int_equal(snc_send_raw(c, frame, n + sent), 0);
	free(frame);
}

// The answer to junk that arrived whole: BAD_MESSAGE, and the connection stays.
static void expect_junk_answered(snc_client* c)
{
	snc_message reply;
	test_wait_for(c, sinew_v1_ServerMessage_reply_tag, &reply);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_BAD_MESSAGE);
	snc_message_free(&reply);
}

// Steps of a 20-link chain that keep a world busy about a second (long enough to queue behind): the
// sanitizers make a step about five times slower.
#ifdef SINEW_TEST_SANITIZED
enum
{
	LONG_STEP = 1000
};
#else
enum
{
	LONG_STEP = 5000
};
#endif

// A world of a 20-link chain, busy with a step of `steps`; its reply comes when it ends.
static uint64_t busy_world(snc_client* c, const char* name, uint32_t steps)
{
	uint64_t world = test_create_world(c, name);
	test_create_hinged_chain(c, world, 20);
	sinew_v1_ClientMessage step = test_command(sinew_v1_ClientMessage_step_tag);
	step.command.step.world_id = world;
	step.command.step.count = steps;
	assert_int_equal(snc_send(c, &step), 0);
	return world;
}

// Send `count` restores of 120 KiB of junk to `world`.
static void send_restores(snc_client* c, uint64_t world, int count)
{
	static uint8_t junk[120u << 10];
	memset(junk, 0x5a, sizeof(junk));
	for (int i = 0; i < count; ++i)
	{
		sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_restore_tag);
		m.command.restore.world_id = world;
		wire_bytes data = { junk, sizeof(junk) };
		m.command.restore.data.funcs.encode = wire_encode_bytes;
		m.command.restore.data.arg = &data;
		assert_int_equal(snc_send(c, &m), 0);
	}
}

// A GetState of `world` carrying `pad` bytes in an unknown field (a server skips those), sent raw.
static void send_padded_get_state(snc_client* c, uint64_t world, size_t pad)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_get_state_tag);
	m.request_id = 4242;
	m.command.get_state.world_id = world;
	size_t cap = pad + 64;
	uint8_t* frame = malloc(cap + 10);
	assert_non_null(frame);
	uint8_t* body = frame + 10;
	pb_ostream_t out = pb_ostream_from_buffer(body, cap);
	assert_true(pb_encode(&out, sinew_v1_ClientMessage_fields, &m));
	assert_true(pb_encode_tag(&out, PB_WT_STRING, 2000) && pb_encode_varint(&out, pad));
	memset(body + out.bytes_written, 0x20, pad);
	size_t size = out.bytes_written + pad;
	uint8_t prefix[10];
	size_t n = wire_varint_put(prefix, size);
	memcpy(body - n, prefix, n);
	assert_int_equal(snc_send_raw(c, body - n, n + size), 0);
	free(frame);
}

// The next `count` replies on c have `code` (and name max_queued_bytes if they are refusals).
static void expect_replies(snc_client* c, int count, int32_t code)
{
	for (int i = 0; i < count; ++i)
	{
		snc_message reply;
		test_wait_for(c, sinew_v1_ServerMessage_reply_tag, &reply);
		assert_int_equal(snc_reply_code(&reply), code);
		if (code == sinew_v1_ErrorCode_ERR_LIMIT_REACHED)
		{
			assert_non_null(strstr(snc_reply_text(&reply), "max_queued_bytes"));
		}
		snc_message_free(&reply);
	}
}

static void test_receive_buffers_are_bounded(void** state)
{
	(void)state;
	// Connections that each send most of a large message and stop held it all: 32 such made the server
	// take 535 MB, and max_connections of them 4 GiB. Now all receive buffers together hold at most
	// max_receive_bytes beyond their first 128 KiB each (here 1 MiB), and a buffer shrinks again once its
	// message is handled.
	static const char* const args[] = { "--max-receive-bytes=1048576", "--max-queued-bytes=1048576", NULL };
	test_server s;
	test_server_start(&s, args);
	snc_client* holder = test_connect(&s, SNC_TCP, "holder", sinew_v1_Role_ROLE_CONTROLLER);
	send_junk(holder, false, 3u << 20, 900u << 10); // 900 KiB of a 3 MiB message, then nothing
	test_sleep_ms(300);
	const double held = test_metric(&s, "sinew_receive_buffer_bytes", NULL);
	assert_true(held >= 700.0 * 1024 && held <= 1024.0 * 1024);
	// Another message that needs more than is left: its connection is closed with the limit's name, on
	// either transport (a WebSocket message is buffered whole).
	for (int t = 0; t < 2; ++t)
	{
		snc_client* c = test_connect(&s, t == 0 ? SNC_TCP : SNC_WS, "late", sinew_v1_Role_ROLE_CONTROLLER);
		send_junk(c, t == 1, 2u << 20, 600u << 10);
		char reason[256];
		assert_int_equal(test_wait_closed(c, reason, sizeof(reason)), sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
		assert_non_null(strstr(reason, "max_receive_bytes"));
		snc_close(c);
	}
	// The holder goes: its buffer is given back.
	snc_close(holder);
	test_sleep_ms(300);
	assert_true(test_metric(&s, "sinew_receive_buffer_bytes", NULL) == 0.0);
	// Large messages that arrive whole are handled (here: not a command, BAD_MESSAGE), and their buffers
	// shrink back while the connection stays.
	for (int t = 0; t < 2; ++t)
	{
		snc_client* c = test_connect(&s, t == 0 ? SNC_TCP : SNC_WS, "whole", sinew_v1_Role_ROLE_CONTROLLER);
		send_junk(c, t == 1, 700u << 10, 700u << 10);
		expect_junk_answered(c);
		assert_true(test_metric(&s, "sinew_receive_buffer_bytes", NULL) == 0.0);
		sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_ping_tag);
		test_expect(c, &m, 0, NULL);
		snc_close(c);
	}
	// Commands that wait for a busy world are bounded too (max_queued_bytes, here 1 MiB): 120 KiB restores
	// queued behind a long step. Before, a client could keep 64 messages of 16 MiB waiting there. And one
	// client address holds at most half: before, one client could fill it all behind its own step, and
	// every other client's commands to busy worlds were refused until that step ended.
	// Three clients, each with a world busy with a long step: two from 127.0.0.1, one from 127.0.0.2
	// (loopback as well).
	snc_client* c = test_connect(&s, SNC_TCP, "queue", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* same = test_connect(&s, SNC_TCP, "same address", sinew_v1_Role_ROLE_CONTROLLER);
	snc_options o = snc_default_options();
	o.port = s.tcp_port;
	o.local_address = "127.0.0.2";
	snc_client* other = test_connect_with(&s, o, "other address", sinew_v1_Role_ROLE_CONTROLLER);
	// The first world stays busy the longest: everything below happens within its step. The other two
	// start theirs just before their own restores are sent.
	uint64_t world = busy_world(c, "busy", LONG_STEP);
	// 12 restores from the first: 4 fit in its address's half (512 KiB), the other 8 are refused at once.
	send_restores(c, world, 12);
	expect_replies(c, 8, sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	// The second connection from that address: refused too, the share is the address's.
	uint64_t world_same = busy_world(same, "busy too", LONG_STEP / 2);
	send_restores(same, world_same, 1);
	expect_replies(same, 1, sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	// The other address still queues 4 behind its own step.
	uint64_t world_other = busy_world(other, "busy elsewhere", LONG_STEP / 2);
	send_restores(other, world_other, 4);
	test_sleep_ms(50);
	assert_true(test_metric(&s, "sinew_queued_command_bytes", NULL) >= 8 * 120.0 * 1024);
	// Then each step ends (its reply), and what waited runs (junk: BAD_SNAPSHOT).
	expect_replies(c, 1, 0);
	expect_replies(c, 4, sinew_v1_ErrorCode_ERR_BAD_SNAPSHOT);
	expect_replies(same, 1, 0);
	expect_replies(other, 1, 0);
	expect_replies(other, 4, sinew_v1_ErrorCode_ERR_BAD_SNAPSHOT);
	assert_true(test_metric(&s, "sinew_queued_command_bytes", NULL) == 0.0);
	// A session's queued commands go with it: they would never run, and counted in no address's half, a
	// client could queue half, reconnect and queue half again. Behind a new step, a third address queues a
	// 60 KiB GetState (padded with an unknown field), then leaves: the pool is empty again at once.
	world = busy_world(c, "busy again", LONG_STEP);
	o.local_address = "127.0.0.3";
	snc_client* leaving = test_connect_with(&s, o, "leaving", sinew_v1_Role_ROLE_CONTROLLER);
	send_padded_get_state(leaving, world, 60u << 10);
	test_sleep_ms(50);
	assert_true(test_metric(&s, "sinew_queued_command_bytes", NULL) >= 60 * 1024);
	snc_close(leaving);
	test_sleep_ms(100);
	assert_true(test_metric(&s, "sinew_queued_command_bytes", NULL) == 0.0);
	expect_replies(c, 1, 0); // the step, which was still running
	snc_close(other);
	snc_close(same);
	snc_close(c);
	assert_int_equal(test_server_stop(&s), 0);
}

static void test_large_messages_must_keep_arriving(void** state)
{
	(void)state;
	// A connection could hold its part of a large message for as long as it liked, and so many of them
	// could keep max_receive_bytes full and every other client's large message refused. Now a message that
	// outgrew the buffer's first 128 KiB must keep arriving at min_receive_bytes_per_s (here 1 MiB/s):
	// 400 KiB sent and then nothing is closed after about 0.4 s.
	static const char* const args[] = { "--min-receive-bytes-per-s=1048576", NULL };
	test_server s;
	test_server_start(&s, args);
	snc_client* stalled = test_connect(&s, SNC_TCP, "stalled", sinew_v1_Role_ROLE_CONTROLLER);
	send_junk(stalled, false, 3u << 20, 400u << 10);
	char reason[256];
	assert_int_equal(test_wait_closed(stalled, reason, sizeof(reason)), sinew_v1_ErrorCode_ERR_TIMEOUT);
	assert_non_null(strstr(reason, "min_receive_bytes_per_s"));
	snc_close(stalled);
	// A message trickled after its first 200 KiB, 4 KiB every 20 ms (200 KiB/s): the same.
	snc_client* trickle = test_connect(&s, SNC_TCP, "trickle", sinew_v1_Role_ROLE_CONTROLLER);
	const size_t size = 2u << 20;
	uint8_t* frame = malloc(WIRE_VARINT_MAX + size);
	assert_non_null(frame);
	const size_t n = wire_varint_put(frame, size);
	memset(frame + n, 0x5a, size);
	assert_int_equal(snc_send_raw(trickle, frame, n + (200u << 10)), 0);
	size_t sent = n + (200u << 10);
	int parts = 0; // 150 take 3 s, the message's bytes pay for about 0.8 s
	while (parts < 150 && snc_send_raw(trickle, frame + sent, 4096) == 0)
	{
		sent += 4096;
		parts += 1;
		test_sleep_ms(20);
	}
	assert_true(parts < 150);
	assert_int_equal(test_wait_closed(trickle, reason, sizeof(reason)), sinew_v1_ErrorCode_ERR_TIMEOUT);
	assert_non_null(strstr(reason, "min_receive_bytes_per_s"));
	snc_close(trickle);
	// Messages that arrive fast enough are handled: 2 MiB in 256 KiB parts every 50 ms (5 MiB/s), on TCP;
	// 2 MiB whole, on either transport (here not a command, so BAD_MESSAGE, and the connection stays).
	snc_client* steady = test_connect(&s, SNC_TCP, "steady", sinew_v1_Role_ROLE_CONTROLLER);
	for (sent = 0; sent < n + size; sent += 256u << 10)
	{
		const size_t part = n + size - sent < (256u << 10) ? n + size - sent : 256u << 10;
		assert_int_equal(snc_send_raw(steady, frame + sent, part), 0);
		test_sleep_ms(50);
	}
	expect_junk_answered(steady);
	// The server, not the client, stops for a second (a busy machine) while the rest of a message waits in
	// its socket: the time counts against the message only once the server has read what is there, and the
	// message is whole then.
	send_junk(steady, false, 400u << 10, 300u << 10);
	test_sleep_ms(100);
	assert_int_equal(kill(s.pid, SIGSTOP), 0);
	uint8_t* rest = calloc(1, 100u << 10);
	assert_non_null(rest);
	assert_int_equal(snc_send_raw(steady, rest, 100u << 10), 0);
	free(rest);
	test_sleep_ms(1000);
	assert_int_equal(kill(s.pid, SIGCONT), 0);
	expect_junk_answered(steady);
	snc_close(steady);
	free(frame);
	for (int t = 0; t < 2; ++t)
	{
		snc_client* c = test_connect(&s, t == 0 ? SNC_TCP : SNC_WS, "whole", sinew_v1_Role_ROLE_CONTROLLER);
		send_junk(c, t == 1, size, size);
		expect_junk_answered(c);
		sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_ping_tag);
		test_expect(c, &m, 0, NULL);
		snc_close(c);
	}
	assert_int_equal(test_server_stop(&s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_bytes_before_handshake),
		cmocka_unit_test(test_random_messages_after_handshake),
		cmocka_unit_test(test_truncated_frames),
		cmocka_unit_test(test_oversize_and_malformed_prefix),
		cmocka_unit_test(test_unknown_command),
		cmocka_unit_test(test_unknown_and_stale_ids),
		cmocka_unit_test(test_not_finite_numbers),
		cmocka_unit_test(test_before_handshake_and_wrong_version),
		cmocka_unit_test(test_token),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_receive_buffers_are_bounded),
		cmocka_unit_test(test_large_messages_must_keep_arriving),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
