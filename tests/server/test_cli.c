// The sinew command-line tool against a real sinewd: each subcommand's output and exit status, worlds by
// name, joints by their URDF names with units, the messages of wrong arguments, and where the server is.
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// Run `sinew args...` with the group server's address in the variables sinewd reads (SINEW_HOST,
// SINEW_TCP_PORT, SINEW_WS_PORT; `env`, "NAME=VALUE", may override one), stdin from /dev/null, stdout and
// stderr captured together into out; returns the exit status. Bounded to 20 s.
static int run_cli_env(char* out, size_t capacity, const char* env, const char* const* args)
{
	const char* argv[32];
	int n = 0;
	argv[n++] = SINEW_CLI_PATH;
	for (int i = 0; args[i] != NULL && n < 31; ++i)
	{
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	int pipe_fds[2];
	assert_int_equal(pipe(pipe_fds), 0);
	pid_t pid = fork();
	if (pid == 0)
	{
		char port[16];
		snprintf(port, sizeof(port), "%d", group_server.tcp_port);
		setenv("SINEW_TCP_PORT", port, 1);
		snprintf(port, sizeof(port), "%d", group_server.ws_port);
		setenv("SINEW_WS_PORT", port, 1);
		setenv("SINEW_HOST", "127.0.0.1", 1);
		const char* eq = env != NULL ? strchr(env, '=') : NULL;
		if (eq != NULL)
		{
			char name[64];
			snprintf(name, sizeof(name), "%.*s", (int)(eq - env), env);
			setenv(name, eq + 1, 1);
		}
		int null = open("/dev/null", O_RDONLY);
		dup2(null, STDIN_FILENO);
		dup2(pipe_fds[1], STDOUT_FILENO);
		dup2(pipe_fds[1], STDERR_FILENO);
		close(pipe_fds[0]);
		close(pipe_fds[1]);
		execv(SINEW_CLI_PATH, (char* const*)argv);
		_exit(127);
	}
	close(pipe_fds[1]);
	size_t size = 0;
	uint64_t deadline = snc_now_ns() + 20000000000ull;
	for (;;)
	{
		struct pollfd p = { pipe_fds[0], POLLIN, 0 };
		if (snc_now_ns() > deadline)
		{
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&p, 1, 100) <= 0)
		{
			continue;
		}
		ssize_t r = read(pipe_fds[0], out + size, capacity - 1 - size);
		if (r <= 0)
		{
			break;
		}
		size += (size_t)r;
		if (size >= capacity - 1)
		{
			break;
		}
	}
	out[size] = '\0';
	close(pipe_fds[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run_cli(char* out, size_t capacity, const char* const* args)
{
	return run_cli_env(out, capacity, NULL, args);
}

// The output holds `text` (and the failure shows the output when it does not).
static void expect_text(const char* out, const char* text)
{
	if (strstr(out, text) == NULL)
	{
		fail_msg("expected \"%s\" in:\n%s", text, out);
	}
}

static void test_subcommands(void** state)
{
	(void)state;
	static char out[65536];
	const char* help[] = { "help", NULL };
	assert_int_equal(run_cli(out, sizeof(out), help), 0);
	const char* listed[] = { "create-world", "bench-server", "play", "pause", "reset", "target", "SINEW_TCP_PORT" };
	for (size_t i = 0; i < sizeof(listed) / sizeof(listed[0]); ++i)
	{
		expect_text(out, listed[i]);
	}
	// A command's --help: every solver, and what happens to the world when the command ends.
	const char* create_help[] = { "create-world", "--help", NULL };
	assert_int_equal(run_cli(out, sizeof(out), create_help), 0);
	expect_text(out, "pgs|tgs|xpbd|direct");
	expect_text(out, "keep_after_disconnect");
	expect_text(out, "unique");

	// Every solver; the world outlives the command that made it. The port comes from SINEW_TCP_PORT.
	const char* create[] = { "create-world", "--name", "cli", "--dt", "0.002", "--solver", "direct", NULL };
	assert_int_equal(run_cli(out, sizeof(out), create), 0);
	char world[32];
	snprintf(world, sizeof(world), "%llu", strtoull(out, NULL, 10));
	assert_true(strtoull(world, NULL, 10) != 0);
	const char* solvers[] = { "pgs", "tgs", "xpbd" };
	for (int i = 0; i < 3; ++i)
	{
		char name[16];
		snprintf(name, sizeof(name), "cli-%s", solvers[i]);
		const char* more[] = { "create-world", "--name", name, "--solver", solvers[i], "--no-keep", NULL };
		assert_int_equal(run_cli(out, sizeof(out), more), 0);
	}
	// A taken name: the server's typed error.
	assert_int_equal(run_cli(out, sizeof(out), create), 1);
	expect_text(out, "ERR_NAME_TAKEN");

	const char* list[] = { "worlds", NULL };
	assert_int_equal(run_cli(out, sizeof(out), list), 0);
	expect_text(out, world);
	expect_text(out, "cli ");
	expect_text(out, "links");

	// Worlds by name or id.
	const char* step[] = { "step", "cli", "250", NULL };
	assert_int_equal(run_cli(out, sizeof(out), step), 0);
	expect_text(out, "step_count=250");
	expect_text(out, "time_s=0.5");
	const char* step_id[] = { "step", world, "10", NULL };
	assert_int_equal(run_cli(out, sizeof(out), step_id), 0);
	expect_text(out, "step_count=260");
	// A name that is also another world's id is ambiguous: said, with the ids to choose from.
	const char* numbered[] = { "create-world", "--name", world, NULL };
	assert_int_equal(run_cli(out, sizeof(out), numbered), 0);
	char other[32];
	snprintf(other, sizeof(other), "%llu", strtoull(out, NULL, 10));
	const char* which[] = { "state", world, NULL };
	assert_int_equal(run_cli(out, sizeof(out), which), 1);
	expect_text(out, "is ambiguous");
	expect_text(out, other);
	expect_text(out, "cli");
	const char* drop[] = { "destroy-world", other, "--yes", NULL };
	assert_int_equal(run_cli(out, sizeof(out), drop), 0);

	// A robot by name; its joints by their URDF names, with units.
	const char* load[] = { "load-urdf", "cli", SINEW_TEST_URDF_DIR "/gripper.urdf", "--drive-all", "50,5", NULL };
	assert_int_equal(run_cli(out, sizeof(out), load), 0);
	expect_text(out, "robot=gripper");
	const char* show[] = { "state", "cli", NULL };
	assert_int_equal(run_cli(out, sizeof(out), show), 0);
	expect_text(out, "tick=260");
	expect_text(out, "wrist ");
	expect_text(out, " rad");
	expect_text(out, "finger_left_joint");
	expect_text(out, " m/s");

	// A paused world: the current state once (one frame), joints by name with units.
	const char* watch[] = { "watch", "cli", "--count", "1", "--rate", "50", NULL };
	assert_int_equal(run_cli(out, sizeof(out), watch), 0);
	expect_text(out, "tick=260");
	expect_text(out, "wrist=");
	expect_text(out, "rad");

	// Targets by name, checked against the joint's limits; the drive moves the joint.
	const char* target[] = { "target", "cli", "wrist=0.4", NULL };
	assert_int_equal(run_cli(out, sizeof(out), target), 0);
	const char* far[] = { "target", "cli", "wrist=7", NULL };
	assert_int_equal(run_cli(out, sizeof(out), far), 2);
	expect_text(out, "outside its limits [-3, 3] rad");
	const char* nameless[] = { "target", "cli", "elbow=1", NULL };
	assert_int_equal(run_cli(out, sizeof(out), nameless), 2);
	expect_text(out, "no joint \"elbow\"");
	expect_text(out, "wrist");
	const char* mimic[] = { "target", "cli", "finger_right_joint=0.0", NULL };
	assert_int_equal(run_cli(out, sizeof(out), mimic), 2);
	expect_text(out, "no drive");
	assert_int_equal(run_cli(out, sizeof(out), show), 0);
	expect_text(out, "0.400000 rad"); // the target column

	// Play, pause, reset.
	const char* play[] = { "play", "cli", NULL };
	assert_int_equal(run_cli(out, sizeof(out), play), 0);
	expect_text(out, "realtime");
	assert_int_equal(run_cli(out, sizeof(out), step), 1); // not paused: the server says so, and how to pause
	expect_text(out, "ERR_WRONG_TIME_MODE");
	expect_text(out, "sinew pause cli");
	const char* pause[] = { "pause", "cli", NULL };
	assert_int_equal(run_cli(out, sizeof(out), pause), 0);
	const char* reset[] = { "reset", "cli", NULL };
	assert_int_equal(run_cli(out, sizeof(out), reset), 0);
	const char* again[] = { "step", "cli", "1", NULL };
	assert_int_equal(run_cli(out, sizeof(out), again), 0);
	expect_text(out, "step_count=1 ");

	const char* bench[] = { "bench-server", "--count", "200", NULL };
	assert_int_equal(run_cli(out, sizeof(out), bench), 0);
	expect_text(out, "BENCH name=cli_step1_latency");

	// Destroying asks first: without a terminal and without --yes, nothing happens.
	const char* destroy[] = { "destroy-world", "cli", NULL };
	assert_int_equal(run_cli(out, sizeof(out), destroy), 2);
	expect_text(out, "--yes");
	const char* destroy_yes[] = { "destroy-world", "cli", "--yes", NULL };
	assert_int_equal(run_cli(out, sizeof(out), destroy_yes), 0);
	// Errors: the server's reason or what is wrong, and status 1; a wrong argument: status 2 and why.
	assert_int_equal(run_cli(out, sizeof(out), step), 1);
	expect_text(out, "no world is named or numbered \"cli\"");
	const char* bad[] = { "step", "cli", "not-a-number", NULL };
	assert_int_equal(run_cli(out, sizeof(out), bad), 2);
	expect_text(out, "expected a number of steps");
	const char* bad_solver[] = { "create-world", "--solver", "magic", NULL };
	assert_int_equal(run_cli(out, sizeof(out), bad_solver), 2);
	expect_text(out, "unknown solver \"magic\" (pgs, tgs, xpbd or direct)");
	const char* missing[] = { "create-world", "--dt", NULL };
	assert_int_equal(run_cli(out, sizeof(out), missing), 2);
	expect_text(out, "--dt needs a value");
	const char* unknown[] = { "frobnicate", NULL };
	assert_int_equal(run_cli(out, sizeof(out), unknown), 2);
}

// Where the server is: flags win over the variables; a port of the other transport says so.
static void test_addresses(void** state)
{
	(void)state;
	static char out[16384];
	char port[16];
	snprintf(port, sizeof(port), "%d", group_server.tcp_port);
	const char* list_flag[] = { "--port", port, "worlds", NULL };
	assert_int_equal(run_cli_env(out, sizeof(out), "SINEW_TCP_PORT=1", list_flag), 0);
	const char* list[] = { "worlds", NULL };
	assert_int_equal(run_cli_env(out, sizeof(out), "SINEW_TCP_PORT=1", list), 1);
	expect_text(out, "cannot connect to 127.0.0.1:1");
	expect_text(out, "is sinewd running there?");
	assert_int_equal(run_cli_env(out, sizeof(out), "SINEW_TCP_PORT=http", list), 2);
	expect_text(out, "SINEW_TCP_PORT");
	// The WebSocket transport: its own variable, and the TCP port named for what it is.
	const char* ws[] = { "--ws", "worlds", NULL };
	assert_int_equal(run_cli(out, sizeof(out), ws), 0);
	const char* ws_at_tcp[] = { "--ws", "--port", port, "worlds", NULL };
	assert_int_equal(run_cli(out, sizeof(out), ws_at_tcp), 1);
	expect_text(out, "sinewd's TCP port");
	snprintf(port, sizeof(port), "%d", group_server.ws_port);
	const char* tcp_at_ws[] = { "--port", port, "worlds", NULL };
	assert_int_equal(run_cli(out, sizeof(out), tcp_at_ws), 1);
	expect_text(out, "sinewd's HTTP/WebSocket port");
	// The server keeps serving.
	assert_int_equal(run_cli(out, sizeof(out), list), 0);
}

// The demo world: protected from destruction, its robot's joints by name.
// A URDF whose geometry is mesh files: the files go with it, found as the importer finds them (its
// package:// ones above the URDF), each once: loading it again sends none.
static void test_mesh_files_sent_once(void** state)
{
	(void)state;
	char out[8192];
	const char* make[] = { "create-world", "--name", "meshes", NULL };
	assert_int_equal(run_cli(out, sizeof(out), make), 0);
	const char* load[] = { "load-urdf", "meshes", SINEW_TEST_MESH_DIR "/meshbot/urdf/meshbot.urdf", NULL };
	assert_int_equal(run_cli(out, sizeof(out), load), 0);
	expect_text(out, "robot=meshbot");
	expect_text(out, "3 named, 3 found here, 3 sent");
	assert_int_equal(run_cli(out, sizeof(out), load), 0);
	expect_text(out, "3 named, 3 found here, 0 sent");
	// A model on the server's model path: this server has none, and says so.
	const char* on_server[] = { "load-urdf", "meshes", "meshbot/urdf/meshbot.urdf", "--on-server", NULL };
	assert_int_equal(run_cli(out, sizeof(out), on_server), 1);
	expect_text(out, "--model-path");
	const char* destroy[] = { "destroy-world", "meshes", "--yes", NULL };
	assert_int_equal(run_cli(out, sizeof(out), destroy), 0);
}

static void test_the_demo(void** state)
{
	(void)state;
	static char out[16384];
	test_server demo;
	const char* args[] = { TEST_WITH_DEMO, NULL };
	test_server_start(&demo, args);
	static char env[48];
	snprintf(env, sizeof(env), "SINEW_TCP_PORT=%d", demo.tcp_port);
	const char* show[] = { "state", "demo", NULL };
	assert_int_equal(run_cli_env(out, sizeof(out), env, show), 0);
	expect_text(out, "joint1 ");
	expect_text(out, "finger_right_joint");
	const char* target[] = { "target", "demo", "joint2=0.5", NULL };
	assert_int_equal(run_cli_env(out, sizeof(out), env, target), 0);
	expect_text(out, "stands by");
	const char* destroy[] = { "destroy-world", "demo", "--yes", NULL };
	assert_int_equal(run_cli_env(out, sizeof(out), env, destroy), 1);
	expect_text(out, "ERR_PROTECTED");
	expect_text(out, "--allow-demo-destroy");
	const char* list[] = { "worlds", NULL };
	assert_int_equal(run_cli_env(out, sizeof(out), env, list), 0);
	expect_text(out, "protected");
	assert_int_equal(test_server_stop(&demo), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subcommands),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_mesh_files_sent_once),
		cmocka_unit_test(test_the_demo),
	};
	return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
