// The sinew command-line tool against a real sinewd: each subcommand's output and exit status.
#include "fixture.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// Run `sinew --port PORT args...`, capture stdout into out; returns the exit status. Bounded to 20 s.
static int run_cli(char* out, size_t capacity, const char* const* args)
{
	char port[16];
	snprintf(port, sizeof(port), "%d", group_server.tcp_port);
	const char* argv[32];
	int n = 0;
	argv[n++] = SINEW_CLI_PATH;
	argv[n++] = "--port";
	argv[n++] = port;
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
		dup2(pipe_fds[1], STDOUT_FILENO);
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

static void test_subcommands(void** state)
{
	(void)state;
	static char out[65536];
	const char* help[] = { "help", NULL };
	assert_int_equal(run_cli(out, sizeof(out), help), 0);
	assert_non_null(strstr(out, "create-world"));
	assert_non_null(strstr(out, "bench-server"));

	const char* create[] = { "create-world", "--name", "cli", "--dt", "0.002", "--solver", "pgs", NULL };
	assert_int_equal(run_cli(out, sizeof(out), create), 0);
	char world[32];
	snprintf(world, sizeof(world), "%llu", strtoull(out, NULL, 10));
	assert_true(strtoull(world, NULL, 10) != 0);

	const char* list[] = { "worlds", NULL };
	assert_int_equal(run_cli(out, sizeof(out), list), 0);
	assert_non_null(strstr(out, world));
	assert_non_null(strstr(out, "cli"));

	// The world outlives the command that made it: step it from another invocation.
	const char* step[] = { "step", world, "250", NULL };
	assert_int_equal(run_cli(out, sizeof(out), step), 0);
	assert_non_null(strstr(out, "step_count=250"));
	assert_non_null(strstr(out, "time_s=0.5"));

	// A paused world: the current state once (one frame).
	const char* watch[] = { "watch", world, "--count", "1", "--rate", "50", NULL };
	assert_int_equal(run_cli(out, sizeof(out), watch), 0);
	assert_non_null(strstr(out, "tick=250"));

	const char* show[] = { "state", world, NULL };
	assert_int_equal(run_cli(out, sizeof(out), show), 0);
	assert_non_null(strstr(out, "tick=250"));

	const char* bench[] = { "bench-server", "--count", "200", NULL };
	assert_int_equal(run_cli(out, sizeof(out), bench), 0);
	assert_non_null(strstr(out, "BENCH name=cli_step1_latency"));

	const char* destroy[] = { "destroy-world", world, NULL };
	assert_int_equal(run_cli(out, sizeof(out), destroy), 0);
	// Errors: the server's reason and status 1; bad usage: status 2.
	assert_int_equal(run_cli(out, sizeof(out), step), 1);
	const char* bad[] = { "step", "not-a-number", NULL };
	assert_int_equal(run_cli(out, sizeof(out), bad), 2);
	const char* unknown[] = { "frobnicate", NULL };
	assert_int_equal(run_cli(out, sizeof(out), unknown), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subcommands),
	};
	return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
