// What the server tests share: the harness (a real sinewd driven by the C client, harness.h) with its
// failures reported to cmocka, and one sinewd for a whole group of tests (cmocka group setup and
// teardown).
#ifndef SINEW_TEST_FIXTURE_H
#define SINEW_TEST_FIXTURE_H

#include "harness.h"
#include "support.h"

// The sinewd of the running group (test_group_setup or test_group_start starts it).
extern test_server group_server;

// Report the harness's failures to cmocka: the running test fails and the next one runs. The group
// setups below do this; a test program that starts its own servers calls it first.
void test_failures_to_cmocka(void);

// For a group setup that needs more: report failures to cmocka, then start group_server with the extra
// arguments (NULL-terminated list, may be NULL). Returns 0.
int test_group_start(const char* const* extra_args);
// Group setup: group_server with no extra arguments.
int test_group_setup(void** state);
// Group teardown: stop group_server; fails the group unless sinewd exited 0 (under ASan: no leaks).
int test_group_teardown(void** state);

#endif
