// Lockstep with three controllers of which one stops answering: the tick waits for every controller's
// input, the silent one is demoted to observer after the timeout (and everyone is told), and the world
// goes on with the other two. Inputs are applied: each controller pushes its own body with 1 N per tick,
// so each body's velocity counts the ticks its controller took part in (closed form v = n F h / m).
#include "fixture.h"

#include <string.h>

enum
{
	CONTROLLERS = 3
};

static const double h = 0.001;   // s
static const double force = 1.0; // N on a 1 kg body

typedef struct controller
{
	snc_client* client;
	uint64_t session;
	uint64_t body;
	uint64_t pending; // request id of the input waiting for its tick
	uint64_t demoted; // session named by the last ControllerDemoted event seen
} controller;

// The next message; ControllerDemoted events are noted on the way.
static void next(controller* c, pb_size_t which, snc_message* out)
{
	for (;;)
	{
		snc_message m;
		int err = snc_receive(c->client, &m, TEST_TIMEOUT_MS);
		if (err != 0)
		{
			fail_msg("waiting for message kind %u: %s", (unsigned)which, snc_error_string(err));
		}
		if (m.msg.which_message == sinew_v1_ServerMessage_event_tag &&
			m.msg.message.event.which_event == sinew_v1_Event_demoted_tag)
		{
			c->demoted = m.msg.message.event.event.demoted.session_id;
		}
		if (m.msg.which_message == which)
		{
			*out = m;
			return;
		}
		snc_message_free(&m);
	}
}

static uint64_t send_input(controller* c, uint64_t world, uint64_t tick)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_lockstep_input_tag;
	m.command.lockstep_input.world_id = world;
	m.command.lockstep_input.tick = tick;
	m.command.lockstep_input.has_forces = true;
	m.command.lockstep_input.forces.bodies_count = 1;
	m.command.lockstep_input.forces.bodies[0].body_id = c->body;
	m.command.lockstep_input.forces.bodies[0].has_force = true;
	m.command.lockstep_input.forces.bodies[0].force.x = force;
	assert_int_equal(snc_send(c->client, &m), 0);
	c->pending = m.request_id;
	return m.request_id;
}

// The reply to the pending input: the tick it stepped.
static uint64_t wait_tick(controller* c, int32_t code)
{
	for (;;)
	{
		snc_message r;
		next(c, sinew_v1_ServerMessage_reply_tag, &r);
		if (r.msg.message.reply.request_id != c->pending)
		{
			snc_message_free(&r);
			continue;
		}
		if (snc_reply_code(&r) != code)
		{
			fail_msg("lockstep input answered %d (%s), expected %d", (int)snc_reply_code(&r), snc_reply_text(&r),
					 (int)code);
		}
		uint64_t step = r.msg.message.reply.result.step.step_count;
		snc_message_free(&r);
		return step;
	}
}

static uint64_t wait_demoted(controller* c)
{
	while (c->demoted == 0)
	{
		snc_message e;
		next(c, sinew_v1_ServerMessage_event_tag, &e);
		snc_message_free(&e);
	}
	return c->demoted;
}

static double velocity_x(snc_client* c, uint64_t world, uint64_t body)
{
	snc_message st;
	test_get_state(c, world, sinew_v1_Include_INCLUDE_VELOCITIES, &st);
	double v = 0;
	for (int i = 0; i < st.body_count; ++i)
	{
		if (st.bodies[i].id == body)
		{
			v = st.bodies[i].linear_velocity.x;
		}
	}
	snc_message_free(&st);
	return v;
}

static void test_three_controllers_one_stops(void** state)
{
	(void)state;
	snc_client* owner = test_connect(&group_server, SNC_TCP, "owner", sinew_v1_Role_ROLE_CONTROLLER);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_create_world_tag;
	m.command.create_world.has_settings = true;
	m.command.create_world.settings.has_gravity = true; // zero gravity
	m.command.create_world.settings.solver = sinew_v1_Solver_SOLVER_PGS;
	m.command.create_world.settings.has_time_step = true;
	m.command.create_world.settings.time_step = h;
	snc_message reply;
	test_expect(owner, &m, 0, &reply);
	uint64_t world = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);

	controller c[CONTROLLERS];
	for (int i = 0; i < CONTROLLERS; ++i)
	{
		c[i].body = test_create_body(owner, world, 2.0 * i, 0, 0);
		c[i].demoted = 0;
		c[i].client = test_connect_raw(&group_server, i == 1 ? SNC_WS : SNC_TCP);
		sinew_v1_HandshakeReply hr;
		assert_int_equal(snc_handshake(c[i].client, "controller", NULL, sinew_v1_Role_ROLE_CONTROLLER, &hr), 0);
		c[i].session = hr.session_id;
		test_join(c[i].client, world, sinew_v1_Role_ROLE_CONTROLLER);
	}
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_set_time_mode_tag;
	m.command.set_time_mode.world_id = world;
	m.command.set_time_mode.has_time = true;
	m.command.set_time_mode.time.mode = sinew_v1_TimeMode_TIME_LOCKSTEP;
	m.command.set_time_mode.time.has_lockstep_timeout_ms = true;
	m.command.set_time_mode.time.lockstep_timeout_ms = 300;
	test_expect(owner, &m, 0, NULL);

	// Ticks 0 to 4 with all three.
	for (uint64_t tick = 0; tick < 5; ++tick)
	{
		for (int i = 0; i < CONTROLLERS; ++i)
		{
			send_input(c + i, world, tick);
		}
		for (int i = 0; i < CONTROLLERS; ++i)
		{
			assert_int_equal(wait_tick(c + i, 0), tick + 1);
		}
	}
	// Controller 2 stops answering. Tick 5 waits for it, then goes on without it.
	send_input(c + 0, world, 5);
	send_input(c + 1, world, 5);
	assert_int_equal(wait_tick(c + 0, 0), 6);
	assert_int_equal(wait_tick(c + 1, 0), 6);
	// Everyone is told who was demoted, the silent one included.
	assert_int_equal(wait_demoted(c + 0), c[2].session);
	assert_int_equal(wait_demoted(c + 1), c[2].session);
	assert_int_equal(wait_demoted(c + 2), c[2].session);
	// The other two go on alone.
	for (uint64_t tick = 6; tick < 9; ++tick)
	{
		send_input(c + 0, world, tick);
		send_input(c + 1, world, tick);
		assert_int_equal(wait_tick(c + 0, 0), tick + 1);
		assert_int_equal(wait_tick(c + 1, 0), tick + 1);
	}
	// The demoted client is an observer now: its input is refused.
	send_input(c + 2, world, 9);
	wait_tick(c + 2, sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE);
	// And it may not control the world again for a while (ten timeouts, then twice that after its next
	// demotion): joining again at once after each demotion would hold every tick for the timeout. The bar
	// is its address's (a new connection from it is refused too); another address may join.
	sinew_v1_ClientMessage join = sinew_v1_ClientMessage_init_zero;
	join.which_command = sinew_v1_ClientMessage_join_world_tag;
	join.command.join_world.world_id = world;
	join.command.join_world.role = sinew_v1_Role_ROLE_CONTROLLER;
	test_expect(c[2].client, &join, sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE, &reply);
	assert_non_null(strstr(snc_reply_text(&reply), "may control it again in"));
	snc_message_free(&reply);
	snc_client* again = test_connect(&group_server, SNC_TCP, "again", sinew_v1_Role_ROLE_CONTROLLER);
	test_expect(again, &join, sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE, NULL);
	snc_close(again);
	snc_options o = snc_default_options();
	o.port = group_server.tcp_port;
	o.local_address = "127.0.0.2";
	snc_client* elsewhere = test_connect_with(&group_server, o, "elsewhere", sinew_v1_Role_ROLE_CONTROLLER);
	test_expect(elsewhere, &join, 0, NULL);
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_leave_world_tag;
	m.command.leave_world.world_id = world;
	test_expect(elsewhere, &m, 0, NULL);
	snc_close(elsewhere);

	// Inputs were applied once per tick each: 9 ticks for bodies 0 and 1, 5 for body 2.
	assert_near(velocity_x(owner, world, c[0].body), 9 * force * h, 1e-12, "v = n F h / m, rounding only");
	assert_near(velocity_x(owner, world, c[1].body), 9 * force * h, 1e-12, "v = n F h / m, rounding only");
	assert_near(velocity_x(owner, world, c[2].body), 5 * force * h, 1e-12, "no force after its demotion");

	// A stale tick, a tick twice, and a bad input are refused at once.
	send_input(c + 0, world, 3);
	wait_tick(c + 0, sinew_v1_ErrorCode_ERR_STALE_TICK);
	send_input(c + 0, world, 9);
	uint64_t first = c[0].pending;
	send_input(c + 0, world, 9);
	wait_tick(c + 0, sinew_v1_ErrorCode_ERR_STALE_TICK);
	// An input naming a body that does not exist is refused at once and not kept.
	c[1].body += 999;
	send_input(c + 1, world, 9);
	wait_tick(c + 1, sinew_v1_ErrorCode_ERR_INVALID_ID);
	c[1].body -= 999;
	// Controller 1's valid input completes tick 9 with controller 0's first one.
	send_input(c + 1, world, 9);
	assert_int_equal(wait_tick(c + 1, 0), 10);
	c[0].pending = first;
	assert_int_equal(wait_tick(c + 0, 0), 10);
	// A controller that joins as an observer with its input pending has it withdrawn and answered at once
	// (it waited for a tick that no longer waits for it), and the tick goes on without it.
	send_input(c + 1, world, 10);
	join.command.join_world.role = sinew_v1_Role_ROLE_OBSERVER;
	test_expect(c[1].client, &join, 0, NULL);
	wait_tick(c + 1, sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE);
	send_input(c + 0, world, 10);
	assert_int_equal(wait_tick(c + 0, 0), 11);

	// Leaving lockstep mode answers nothing pending (none is) and allows Step again.
	test_set_mode(owner, world, sinew_v1_TimeMode_TIME_PAUSED, 1.0);
	test_step(owner, world, 1);
	for (int i = 0; i < CONTROLLERS; ++i)
	{
		snc_close(c[i].client);
	}
	snc_close(owner);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_controllers_one_stops),
	};
	return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
