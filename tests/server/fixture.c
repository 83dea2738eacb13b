// The server tests' fixture (see fixture.h).
#include "fixture.h"

test_server group_server;

static void cmocka_failure(const char* message)
{
	fail_msg("%s", message);
}

void test_failures_to_cmocka(void)
{
	test_harness_configure(cmocka_failure, TEST_TIMEOUT_MS);
}

int test_group_start(const char* const* extra_args)
{
	test_failures_to_cmocka();
	test_server_start(&group_server, extra_args);
	return 0;
}

int test_group_setup(void** state)
{
	(void)state;
	return test_group_start(NULL);
}

int test_group_teardown(void** state)
{
	(void)state;
	// A clean exit (0) includes, under ASan, "no leaks".
	return test_server_stop(&group_server);
}
