// A world that blows up numerically is reported (step reply, event to its members and subscribers,
// world list) and stops, while the other worlds keep going; reset brings it back.
#include "fixture.h"

#include <string.h>

// A world with one body moving at 2e6 m/s: above the default divergence speed (1e6 m/s), so its first
// step flags it as blown up.
static uint64_t doomed_world(snc_client* c, const char* name)
{
	uint64_t world = test_create_world(c, name);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_create_body_tag;
	m.command.create_body.world_id = world;
	m.command.create_body.has_body = true;
	m.command.create_body.body.has_linear_velocity = true;
	m.command.create_body.body.linear_velocity.x = 2e6;
	test_expect(c, &m, 0, NULL);
	return world;
}

static uint64_t step_count(snc_client* c, uint64_t world, bool* diverged)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_list_worlds_tag;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	uint64_t steps = UINT64_MAX;
	for (int i = 0; i < reply.world_count; ++i)
	{
		if (reply.worlds[i].world_id == world)
		{
			steps = reply.worlds[i].step_count;
			if (diverged != NULL)
			{
				*diverged = reply.worlds[i].diverged;
			}
		}
	}
	snc_message_free(&reply);
	assert_true(steps != UINT64_MAX);
	return steps;
}

static void wait_diverged_event(snc_client* c, uint64_t world)
{
	for (;;)
	{
		snc_message e;
		test_wait_for(c, sinew_v1_ServerMessage_event_tag, &e);
		bool hit =
			e.msg.message.event.which_event == sinew_v1_Event_diverged_tag && e.msg.message.event.world_id == world;
		if (hit)
		{
			assert_true(strlen(e.msg.message.event.event.diverged.detail) > 0);
		}
		snc_message_free(&e);
		if (hit)
		{
			return;
		}
	}
}

static void test_blow_up_is_reported_and_contained(void** state)
{
	(void)state;
	snc_client* owner = test_connect(&group_server, SNC_TCP, "owner", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* watcher = test_connect(&group_server, SNC_WS, "watcher", sinew_v1_Role_ROLE_OBSERVER);
	// A healthy world running in real time.
	uint64_t healthy = test_create_world(owner, "healthy");
	test_create_body(owner, healthy, 0, 0, 0);
	test_set_mode(owner, healthy, sinew_v1_TimeMode_TIME_REALTIME, 1.0);

	uint64_t bad = doomed_world(owner, "bad");
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_subscribe_tag;
	m.command.subscribe.world_id = bad;
	test_expect(watcher, &m, 0, NULL);
	// The step that blows up is answered with DIVERGED and its reason.
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_step_tag;
	m.command.step.world_id = bad;
	m.command.step.count = 10;
	snc_message reply;
	assert_int_equal(test_request(owner, &m, &reply), sinew_v1_ErrorCode_ERR_DIVERGED);
	assert_true(strlen(snc_reply_text(&reply)) > 0);
	snc_message_free(&reply);
	// Members and subscribers are told.
	wait_diverged_event(owner, bad);
	wait_diverged_event(watcher, bad);
	bool diverged = false;
	uint64_t stuck = step_count(owner, bad, &diverged);
	assert_true(diverged);
	// It stays stopped: the next step is refused at once.
	test_expect(owner, &m, sinew_v1_ErrorCode_ERR_DIVERGED, NULL);
	assert_int_equal(step_count(owner, bad, NULL), stuck);

	// A real-time world that blows up stops pacing and reports it too.
	uint64_t runaway = doomed_world(owner, "runaway");
	test_set_mode(owner, runaway, sinew_v1_TimeMode_TIME_REALTIME, 1.0);
	wait_diverged_event(owner, runaway);

	// Meanwhile the healthy world keeps going.
	uint64_t before = step_count(owner, healthy, &diverged);
	assert_false(diverged);
	for (int i = 0; step_count(owner, healthy, NULL) <= before + 20; ++i)
	{
		assert_true(i < 500); // at most 10 s
		test_sleep_ms(20);
	}
	assert_int_equal(step_count(owner, runaway, &diverged), 1);
	assert_true(diverged);

	// Reset (to the empty world it was created as) brings it back.
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_reset_tag;
	m.command.reset.world_id = bad;
	test_expect(owner, &m, 0, NULL);
	test_step(owner, bad, 5);
	step_count(owner, bad, &diverged);
	assert_false(diverged);
	snc_close(watcher);
	snc_close(owner);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blow_up_is_reported_and_contained),
	};
	return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
