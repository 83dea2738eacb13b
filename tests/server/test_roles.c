// Roles and several clients on one world: the owner (who created it), controllers (joined to control),
// observers (everyone else, and observer sessions everywhere). Every command checks the role.
#include "fixture.h"

#include <stdio.h>
#include <string.h>

static void expect_step(snc_client* c, uint64_t world, int32_t code)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_step_tag);
	m.command.step.world_id = world;
	m.command.step.count = 1;
	test_expect(c, &m, code, NULL);
}

static void expect_join(snc_client* c, uint64_t world, sinew_v1_Role role, int32_t code)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_join_world_tag);
	m.command.join_world.world_id = world;
	m.command.join_world.role = role;
	test_expect(c, &m, code, NULL);
}

static void test_observer_cannot_mutate(void** state)
{
	(void)state;
	snc_client* owner = test_connect(&group_server, SNC_TCP, "owner", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* observer = test_connect(&group_server, SNC_WS, "observer", sinew_v1_Role_ROLE_OBSERVER);
	uint64_t world = test_create_world(owner, "watched");
	uint64_t body = test_create_body(owner, world, 0, 0, 1);
	const int32_t forbidden = sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE;

	// Everything that changes something is refused to an observer session.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	test_expect(observer, &m, forbidden, NULL);
	expect_step(observer, world, forbidden);
	expect_join(observer, world, sinew_v1_Role_ROLE_CONTROLLER, forbidden);
	expect_join(observer, world, sinew_v1_Role_ROLE_OWNER, forbidden);
	m = test_command(sinew_v1_ClientMessage_create_body_tag);
	m.command.create_body.world_id = world;
	test_expect(observer, &m, forbidden, NULL);
	m = test_command(sinew_v1_ClientMessage_apply_forces_tag);
	m.command.apply_forces.world_id = world;
	m.command.apply_forces.bodies_count = 1;
	m.command.apply_forces.bodies[0].body_id = body;
	test_expect(observer, &m, forbidden, NULL);
	m = test_command(sinew_v1_ClientMessage_destroy_world_tag);
	m.command.destroy_world.world_id = world;
	test_expect(observer, &m, forbidden, NULL);
	m = test_command(sinew_v1_ClientMessage_set_time_mode_tag);
	m.command.set_time_mode.world_id = world;
	test_expect(observer, &m, forbidden, NULL);
	m = test_command(sinew_v1_ClientMessage_snapshot_tag);
	m.command.snapshot.world_id = world;
	m.command.snapshot.make_reset_point = true;
	test_expect(observer, &m, forbidden, NULL);

	// Reading is allowed: the list, the state, a snapshot, a subscription.
	m = test_command(sinew_v1_ClientMessage_list_worlds_tag);
	snc_message reply;
	test_expect(observer, &m, 0, &reply);
	bool listed = false;
	for (int i = 0; i < reply.world_count; ++i)
	{
		if (reply.worlds[i].world_id == world)
		{
			listed = true;
			assert_int_equal(reply.worlds[i].your_role, sinew_v1_Role_ROLE_OBSERVER);
		}
	}
	assert_true(listed);
	snc_message_free(&reply);
	test_get_state(observer, world, 0, &reply);
	assert_int_equal(reply.body_count, 1);
	snc_message_free(&reply);
	m = test_command(sinew_v1_ClientMessage_snapshot_tag);
	m.command.snapshot.world_id = world;
	test_expect(observer, &m, 0, NULL);
	m = test_command(sinew_v1_ClientMessage_subscribe_tag);
	m.command.subscribe.world_id = world;
	test_expect(observer, &m, 0, NULL);

	// Nothing the observer tried changed the world.
	test_get_state(owner, world, 0, &reply);
	assert_int_equal(reply.body_count, 1);
	assert_int_equal(reply.msg.message.reply.result.state.tick, 0);
	snc_message_free(&reply);
	snc_close(observer);
	snc_close(owner);
}

static void test_controller_and_owner(void** state)
{
	(void)state;
	snc_client* owner = test_connect(&group_server, SNC_TCP, "owner", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* other = test_connect(&group_server, SNC_TCP, "other", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(owner, "shared");
	const int32_t forbidden = sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE;
	// Not joined: an observer of this world.
	expect_step(other, world, forbidden);
	expect_join(other, world, sinew_v1_Role_ROLE_OWNER, forbidden); // it has an owner
	expect_join(other, world, sinew_v1_Role_ROLE_CONTROLLER, 0);
	expect_step(other, world, 0);
	// A controller drives the world but does not reshape it.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_body_tag);
	m.command.create_body.world_id = world;
	test_expect(other, &m, forbidden, NULL);
	m = test_command(sinew_v1_ClientMessage_destroy_world_tag);
	m.command.destroy_world.world_id = world;
	test_expect(other, &m, forbidden, NULL);
	// After leaving it is an observer again.
	m = test_command(sinew_v1_ClientMessage_leave_world_tag);
	m.command.leave_world.world_id = world;
	test_expect(other, &m, 0, NULL);
	expect_step(other, world, forbidden);
	snc_close(other);
	snc_close(owner);
}

static void test_world_follows_its_owner(void** state)
{
	(void)state;
	snc_client* watcher = test_connect(&group_server, SNC_TCP, "watcher", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* owner = test_connect(&group_server, SNC_TCP, "owner", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(owner, "ephemeral");
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_subscribe_tag);
	m.command.subscribe.world_id = world;
	test_expect(watcher, &m, 0, NULL);
	// A world that is not kept goes with its owner, and its subscribers are told.
	snc_close(owner);
	for (;;)
	{
		snc_message e;
		test_wait_for(watcher, sinew_v1_ServerMessage_event_tag, &e);
		bool destroyed = e.msg.message.event.which_event == sinew_v1_Event_destroyed_tag;
		if (destroyed)
		{
			assert_int_equal(e.msg.message.event.world_id, world);
			assert_non_null(strstr(e.msg.message.event.event.destroyed.reason, "owner"));
		}
		snc_message_free(&e);
		if (destroyed)
		{
			break;
		}
	}
	expect_step(watcher, world, sinew_v1_ErrorCode_ERR_UNKNOWN_WORLD);

	// A kept world becomes ownerless; another session can take it over and destroy it.
	owner = test_connect(&group_server, SNC_TCP, "owner2", sinew_v1_Role_ROLE_CONTROLLER);
	m = test_command(sinew_v1_ClientMessage_create_world_tag);
	m.command.create_world.keep_after_disconnect = true;
	snc_message reply;
	test_expect(owner, &m, 0, &reply);
	uint64_t kept = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	snc_close(owner);
	// The server notices the disconnect asynchronously: retry the takeover until the owner is gone.
	for (int i = 0;; ++i)
	{
		m = test_command(sinew_v1_ClientMessage_join_world_tag);
		m.command.join_world.world_id = kept;
		m.command.join_world.role = sinew_v1_Role_ROLE_OWNER;
		int32_t code = test_request(watcher, &m, &reply);
		snc_message_free(&reply);
		if (code == 0)
		{
			break;
		}
		assert_int_equal(code, sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE);
		assert_true(i < 200);
		test_sleep_ms(20);
	}
	m = test_command(sinew_v1_ClientMessage_destroy_world_tag);
	m.command.destroy_world.world_id = kept;
	test_expect(watcher, &m, 0, NULL);
	snc_close(watcher);
}

static void test_several_clients_on_one_world(void** state)
{
	(void)state;
	snc_client* owner = test_connect(&group_server, SNC_TCP, "owner", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* viewers[3];
	uint64_t world = test_create_world(owner, "crowd");
	test_create_body(owner, world, 0, 0, 0);
	for (int i = 0; i < 3; ++i)
	{
		viewers[i] = test_connect(&group_server, i == 1 ? SNC_WS : SNC_TCP, "viewer", sinew_v1_Role_ROLE_OBSERVER);
		sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_subscribe_tag);
		m.command.subscribe.world_id = world;
		m.command.subscribe.rate_hz = 1000;
		test_expect(viewers[i], &m, 0, NULL);
	}
	test_step(owner, world, 25);
	// Every viewer sees the state at tick 25, with the same body.
	for (int i = 0; i < 3; ++i)
	{
		for (;;)
		{
			snc_message f;
			test_wait_for(viewers[i], sinew_v1_ServerMessage_state_tag, &f);
			uint64_t tick = f.msg.message.state.tick;
			assert_int_equal(f.body_count, 1);
			snc_message_free(&f);
			if (tick == 25)
			{
				break;
			}
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		snc_close(viewers[i]);
	}
	snc_close(owner);
}

// Names are unique on a server: a taken name is refused with ERR_NAME_TAKEN and changes nothing; a clone
// without a name gets "<name> clone", then "<name> clone 2"; a name is free again once its world is gone.
static void test_world_names_are_unique(void** state)
{
	(void)state;
	snc_client* a = test_connect(&group_server, SNC_TCP, "first", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* b = test_connect(&group_server, SNC_WS, "second", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(a, "unique");
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "unique");
	snc_message reply;
	test_expect(b, &m, sinew_v1_ErrorCode_ERR_NAME_TAKEN, &reply);
	char id[32];
	snprintf(id, sizeof(id), "%llu", (unsigned long long)world);
	assert_non_null(strstr(snc_reply_text(&reply), id)); // the message names the world that has it
	snc_message_free(&reply);
	// Unnamed worlds do not collide.
	uint64_t unnamed[2] = { test_create_world(b, ""), test_create_world(b, "") };
	assert_true(unnamed[0] != unnamed[1]);

	const char* expected[] = { "unique clone", "unique clone 2" };
	for (int i = 0; i < 2; ++i)
	{
		m = test_command(sinew_v1_ClientMessage_clone_world_tag);
		m.command.clone_world.world_id = world;
		uint64_t clone = test_created(b, &m);
		m = test_command(sinew_v1_ClientMessage_list_worlds_tag);
		test_expect(b, &m, 0, &reply);
		bool found = false;
		for (int w = 0; w < reply.world_count; ++w)
		{
			found |= reply.worlds[w].world_id == clone && strcmp(reply.worlds[w].name, expected[i]) == 0;
		}
		snc_message_free(&reply);
		assert_true(found);
	}
	m = test_command(sinew_v1_ClientMessage_clone_world_tag);
	m.command.clone_world.world_id = world;
	snprintf(m.command.clone_world.name, sizeof(m.command.clone_world.name), "unique clone");
	test_expect(b, &m, sinew_v1_ErrorCode_ERR_NAME_TAKEN, NULL);

	// Its owner's session ends: the world goes, and its name is free.
	snc_close(a);
	m = test_command(sinew_v1_ClientMessage_create_world_tag);
	snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "unique");
	for (int i = 0;; ++i)
	{
		int32_t code = test_request(b, &m, &reply);
		snc_message_free(&reply);
		if (code == 0)
		{
			break;
		}
		assert_int_equal(code, sinew_v1_ErrorCode_ERR_NAME_TAKEN);
		assert_true(i < 200); // the server notices the disconnect asynchronously
		test_sleep_ms(20);
	}
	snc_close(b);
}

static void expect_join_with_key(snc_client* c, uint64_t world, sinew_v1_Role role, const char* key, int32_t code,
								 const char* says)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_join_world_tag);
	m.command.join_world.world_id = world;
	m.command.join_world.role = role;
	snprintf(m.command.join_world.controller_key, sizeof(m.command.join_world.controller_key), "%s", key);
	snc_message reply;
	test_expect(c, &m, code, &reply);
	if (says != NULL && strstr(snc_reply_text(&reply), says) == NULL)
	{
		fail_msg("join: \"%s\" does not say \"%s\"", snc_reply_text(&reply), says);
	}
	snc_message_free(&reply);
}

static void set_key(snc_client* c, uint64_t world, const char* key, int32_t code)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_set_controller_key_tag);
	m.command.set_controller_key.world_id = world;
	snprintf(m.command.set_controller_key.key, sizeof(m.command.set_controller_key.key), "%s", key);
	test_expect(c, &m, code, NULL);
}

static bool needs_key(snc_client* c, uint64_t world)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_list_worlds_tag);
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	bool found = false, key = false;
	for (pb_size_t i = 0; i < reply.world_count; ++i)
	{
		if (reply.worlds[i].world_id == world)
		{
			found = true;
			key = reply.worlds[i].controller_key;
		}
	}
	snc_message_free(&reply);
	assert_true(found);
	return key;
}

static void test_controllers_need_the_owners_key(void** state)
{
	(void)state;
	// Without a key any controller session may control a world, and a lockstep world waits for each one:
	// a client with many addresses could keep joining and holding ticks. With SetControllerKey the owner
	// decides who controls: the key is needed to control or to adopt the world, and those who joined
	// without it become observers.
	snc_client* owner = test_connect(&group_server, SNC_TCP, "owner", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* early = test_connect(&group_server, SNC_TCP, "early", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* friend = test_connect(&group_server, SNC_WS, "friend", sinew_v1_Role_ROLE_CONTROLLER);
	snc_options from_elsewhere = snc_default_options();
	from_elsewhere.transport = SNC_TCP;
	from_elsewhere.local_address = "127.0.0.2";
	snc_client* guesser = test_connect_with(&group_server, from_elsewhere, "guesser", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(owner, "by key");
	const int32_t forbidden = sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE;
	assert_false(needs_key(owner, world));
	expect_join(early, world, sinew_v1_Role_ROLE_CONTROLLER, 0);
	expect_step(early, world, 0);
	set_key(early, world, "open sesame", forbidden); // the owner's to set
	set_key(owner, world, "open sesame", 0);
	assert_true(needs_key(friend, world));
	// The controller that joined without the key is told, and is an observer now.
	snc_message event;
	test_wait_for(early, sinew_v1_ServerMessage_event_tag, &event);
	assert_int_equal(event.msg.message.event.which_event, sinew_v1_Event_demoted_tag);
	assert_non_null(strstr(event.msg.message.event.event.demoted.reason, "controller key"));
	snc_message_free(&event);
	expect_step(early, world, forbidden);
	expect_join_with_key(early, world, sinew_v1_Role_ROLE_CONTROLLER, "", forbidden, "give it in");
	// A wrong key bars its address for a while, doubling: guessing takes that long per try (the other
	// address is not barred).
	expect_join_with_key(guesser, world, sinew_v1_Role_ROLE_CONTROLLER, "open sesame!", forbidden, "is wrong");
	expect_join_with_key(guesser, world, sinew_v1_Role_ROLE_CONTROLLER, "open sesame", forbidden,
						 "may control it again");
	expect_join_with_key(friend, world, sinew_v1_Role_ROLE_CONTROLLER, "open sesame", 0, NULL);
	expect_step(friend, world, 0);
	// Observing needs no key; the owner controls without one.
	expect_join_with_key(early, world, sinew_v1_Role_ROLE_OBSERVER, "", 0, NULL);
	expect_step(owner, world, 0);
	// An empty key opens the world to every controller session again.
	set_key(owner, world, "", 0);
	assert_false(needs_key(early, world));
	expect_join(early, world, sinew_v1_Role_ROLE_CONTROLLER, 0);
	expect_step(early, world, 0);
	snc_close(guesser);
	snc_close(friend);
	snc_close(early);
	snc_close(owner);
}

static uint64_t demo_world(snc_client* c, bool* destroy_protected)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_list_worlds_tag);
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	uint64_t id = 0;
	for (int w = 0; w < reply.world_count; ++w)
	{
		if (strcmp(reply.worlds[w].name, "demo") == 0)
		{
			id = reply.worlds[w].world_id;
			*destroy_protected = reply.worlds[w].destroy_protected;
			assert_true(reply.worlds[w].link_count > 0); // the demo robot's links
		}
	}
	snc_message_free(&reply);
	return id;
}

// The demo world refuses DestroyWorld (ERR_PROTECTED), even from its owner, unless the server was
// started with --allow-demo-destroy.
static void test_the_demo_world_is_protected(void** state)
{
	(void)state;
	for (int allow = 0; allow < 2; ++allow)
	{
		test_server server;
		const char* args[] = { TEST_WITH_DEMO, allow ? "--allow-demo-destroy" : NULL, NULL };
		test_server_start(&server, args);
		snc_client* c = test_connect(&server, SNC_TCP, "destroyer", sinew_v1_Role_ROLE_CONTROLLER);
		bool destroy_protected = false;
		uint64_t demo = demo_world(c, &destroy_protected);
		assert_true(demo != 0);
		assert_int_equal(destroy_protected, !allow);
		expect_join(c, demo, sinew_v1_Role_ROLE_OWNER, 0);
		// Its adopter may not key it: the key would outlive the adoption and lock everyone out.
		set_key(c, demo, "mine", sinew_v1_ErrorCode_ERR_PROTECTED);
		sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_destroy_world_tag);
		m.command.destroy_world.world_id = demo;
		snc_message reply;
		test_expect(c, &m, allow ? 0 : sinew_v1_ErrorCode_ERR_PROTECTED, &reply);
		if (!allow)
		{
			assert_non_null(strstr(snc_reply_text(&reply), "--allow-demo-destroy"));
		}
		snc_message_free(&reply);
		assert_int_equal(demo_world(c, &destroy_protected) != 0, !allow);
		snc_close(c);
		assert_int_equal(test_server_stop(&server), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_observer_cannot_mutate),          cmocka_unit_test(test_controller_and_owner),
		cmocka_unit_test(test_world_follows_its_owner),         cmocka_unit_test(test_several_clients_on_one_world),
		cmocka_unit_test(test_world_names_are_unique),          cmocka_unit_test(test_the_demo_world_is_protected),
		cmocka_unit_test(test_controllers_need_the_owners_key),
	};
	return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
