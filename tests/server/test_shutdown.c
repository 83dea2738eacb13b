// Shutdown with long steps in flight: a Step of 100,000 steps stops between steps before the grace
// deadline, its client gets what was done with ERR_SHUTTING_DOWN and then Closing, and sinewd exits 0
// within the grace; a single step longer than the grace (the core cannot stop inside one) is not waited
// for beyond it, and the kept worlds not stepping are still written to the state directory on the way
// out. Each test starts its own sinewd and measures the time from SIGTERM to exit.
#include "fixture.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

// A hanging chain of n hinged links; with substeps and iterations to make its steps as slow as wanted.
static uint64_t chain_world(snc_client* c, int n, int substeps, int iterations)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "chain");
	m.command.create_world.has_settings = true;
	m.command.create_world.settings.has_substeps = true;
	m.command.create_world.settings.substeps = substeps;
	m.command.create_world.settings.has_position_iterations = true;
	m.command.create_world.settings.position_iterations = iterations;
	uint64_t world = test_created(c, &m);
	uint64_t previous = 0;
	for (int i = 0; i < n; ++i)
	{
		uint64_t b = test_create_body(c, world, 0.25 + 0.5 * i, 0, 0);
		test_create_hinge(c, world, previous, b, previous == 0 ? 0.0 : 0.25, 0, 0, -0.25, 0, 0);
		previous = b;
	}
	return world;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Wait for sinewd to exit (at most 30 s, then SIGKILL); returns its exit code.
static int wait_exit(test_server* s)
{
	double t0 = now_s();
	int status = 0;
	for (;;)
	{
		pid_t r = waitpid(s->pid, &status, WNOHANG);
		if (r == s->pid)
		{
			break;
		}
		if (now_s() - t0 > 30.0)
		{
			kill(s->pid, SIGKILL);
			waitpid(s->pid, &status, 0);
			break;
		}
		test_sleep_ms(5);
	}
	s->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_long_step_stops_at_the_grace(void** state)
{
	(void)state;
	test_server s;
	static const char* const args[] = { "--shutdown-grace-ms", "1000", NULL };
	test_server_start(&s, args);
	snc_client* c = test_connect(&s, SNC_TCP, "stepper", sinew_v1_Role_ROLE_CONTROLLER);
	// 30 links, 8 substeps: about 0.1 ms a step in the release build, so 100,000 steps take some 10 s,
	// ten times the grace (and far more under the sanitizers).
	uint64_t world = chain_world(c, 30, 8, 8);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_step_tag);
	m.request_id = 77;
	m.command.step.world_id = world;
	m.command.step.count = 100000;
	assert_int_equal(snc_send(c, &m), 0);
	test_sleep_ms(300);
	double t0 = now_s();
	kill(s.pid, SIGTERM);
	// The reply: what was done, and why not the rest.
	snc_message reply;
	test_wait_for(c, sinew_v1_ServerMessage_reply_tag, &reply);
	double reply_s = now_s() - t0;
	assert_int_equal(reply.msg.message.reply.request_id, 77);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_SHUTTING_DOWN);
	assert_int_equal(reply.msg.message.reply.which_result, sinew_v1_Reply_step_tag);
	uint64_t done = reply.msg.message.reply.result.step.step_count;
	assert_true(done > 0 && done < 100000);
	assert_non_null(strstr(snc_reply_text(&reply), "stopped after"));
	snc_message_free(&reply);
	// Then Closing, then the close.
	char reason[256];
	assert_int_equal(test_wait_closed(c, reason, sizeof(reason)), sinew_v1_ErrorCode_ERR_SHUTTING_DOWN);
	snc_close(c);
	int code = wait_exit(&s);
	double seconds = now_s() - t0;
	print_message("MEASURE shutdown_with_long_step_s=%.3f reply_after_s=%.3f steps_done=%llu grace_s=1\n", seconds,
				  reply_s, (unsigned long long)done);
	assert_int_equal(code, 0);
	// The grace (1 s), the flush of the last replies, and the process's exit; 1.5 s of slack for a loaded
	// machine. Before steps could stop, this took as long as the 100,000 steps.
	assert_true(seconds < 2.5);
}

// The state directory's files (world-<id>.sinew) in dir.
static int state_files(const char* dir)
{
	DIR* d = opendir(dir);
	int n = 0;
	struct dirent* e;
	while (d != NULL && (e = readdir(d)) != NULL)
	{
		size_t len = strlen(e->d_name);
		n += strncmp(e->d_name, "world-", 6) == 0 && len > 6 && strcmp(e->d_name + len - 6, ".sinew") == 0;
	}
	if (d != NULL)
	{
		closedir(d);
	}
	return n;
}

static void test_single_step_longer_than_the_grace(void** state)
{
	(void)state;
	// With a state directory and no periodic write: a kept world that is not stepping still reaches it
	// when the server leaves without the step.
	char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/sinew-shutdown-XXXXXX");
	assert_non_null(mkdtemp(dir));
	test_server s;
	const char* args[] = { "--shutdown-grace-ms",          "200",      "--state-dir", dir,
						   "--state-snapshot-interval-ms", "86400000", NULL };
	test_server_start(&s, args);
	snc_client* c = test_connect(&s, SNC_TCP, "stepper", sinew_v1_Role_ROLE_CONTROLLER);
	sinew_v1_ClientMessage kept = test_command(sinew_v1_ClientMessage_create_world_tag);
	snprintf(kept.command.create_world.name, sizeof(kept.command.create_world.name), "kept");
	kept.command.create_world.keep_after_disconnect = true;
	uint64_t kept_world = test_created(c, &kept);
	test_create_body(c, kept_world, 0, 0, 1);
	// 100 links, 1000 substeps of 1000 iterations: one step takes seconds (release) to minutes (ASan).
	uint64_t world = chain_world(c, 100, 1000, 1000);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_step_tag);
	m.command.step.world_id = world;
	m.command.step.count = 1;
	assert_int_equal(snc_send(c, &m), 0);
	test_sleep_ms(300);
	double t0 = now_s();
	kill(s.pid, SIGTERM);
	int code = wait_exit(&s);
	double seconds = now_s() - t0;
	snc_close(c);
	print_message("MEASURE shutdown_with_one_long_step_s=%.3f grace_s=0.2\n", seconds);
	assert_int_equal(code, 0);
	// The grace (0.2 s) and the 1 s the server waits for a step beyond it, checked every 0.1 s; 1.5 s of
	// slack.
	assert_true(seconds < 2.8);
	// The kept world's file was written on the way out.
	assert_int_equal(state_files(dir), 1);
	DIR* d = opendir(dir);
	struct dirent* e;
	while (d != NULL && (e = readdir(d)) != NULL)
	{
		if (e->d_name[0] != '.')
		{
			char path[384];
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	}
	if (d != NULL)
	{
		closedir(d);
	}
	rmdir(dir);
}

int main(void)
{
	test_failures_to_cmocka();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_step_stops_at_the_grace),
		cmocka_unit_test(test_single_step_longer_than_the_grace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
