// Integration test harness: start a real sinewd on loopback ports chosen by the kernel (port 0, read back
// from --port-file, so tests never race for ports), talk to it with the C client, stop it with SIGTERM
// and check that it exits 0 (under ASan that includes "no leaks"). Every wait is bounded.
#ifndef SINEW_TEST_HARNESS_H
#define SINEW_TEST_HARNESS_H

#include "sinew_client.h"
#include "support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

// Bound on every wait for one reply or message, ms (generous: sanitizer builds on a shared machine).
#define TEST_TIMEOUT_MS 10000

typedef struct test_server
{
	pid_t pid;
	int tcp_port;
	int ws_port;
	char dir[64];
	char log_path[128];
} test_server;

// Start sinewd with --no-demo, ports 0 and the given extra arguments (NULL-terminated list, may be
// NULL). Fails the test if it does not come up within 10 s. TEST_WITH_DEMO among the extra arguments
// (it is not passed on) starts it with its demo world instead.
#define TEST_WITH_DEMO "--test-with-demo"
void test_server_start(test_server* server, const char* const* extra_args);
// SIGTERM and wait (at most 15 s, then SIGKILL). Returns the exit status (0 expected), or -1.
int test_server_stop(test_server* server);
// Print the server's log (for failures).
void test_server_dump_log(const test_server* server);
// Resident memory of the server process, bytes.
size_t test_server_rss(const test_server* server);

// Connect and shake hands; fails the test on error.
snc_client* test_connect(const test_server* server, snc_transport transport, const char* name, sinew_v1_Role role);
// Connect without a handshake.
snc_client* test_connect_raw(const test_server* server, snc_transport transport);

// Send and wait for the reply; fails the test on a transport error. Returns the reply's status code.
int32_t test_request(snc_client* client, sinew_v1_ClientMessage* message, snc_message* reply);
// The same, asserting the code; frees the reply unless `keep` is given.
void test_expect(snc_client* client, sinew_v1_ClientMessage* message, int32_t code, snc_message* keep);
// Next message of a kind (others are dropped), within TEST_TIMEOUT_MS; fails the test otherwise.
void test_wait_for(snc_client* client, pb_size_t which_message, snc_message* out);
// Read until the server closes the connection; returns the Closing event's code (or 0 if none came).
int32_t test_wait_closed(snc_client* client, char* reason, size_t reason_capacity);

// Command builders.
uint64_t test_create_world(snc_client* client, const char* name);
uint64_t test_create_body(snc_client* client, uint64_t world, double x, double y, double z);
uint64_t test_create_hinge(snc_client* client, uint64_t world, uint64_t body_a, uint64_t body_b, double ax, double ay,
						   double az, double bx, double by, double bz);
void test_step(snc_client* client, uint64_t world, uint32_t count);
void test_set_mode(snc_client* client, uint64_t world, sinew_v1_TimeMode mode, double rate);
void test_join(snc_client* client, uint64_t world, sinew_v1_Role role);
// get_state with the include bits; the caller frees the reply.
void test_get_state(snc_client* client, uint64_t world, uint32_t include, snc_message* reply);

// HTTP GET on the server's HTTP port: status code, body into out (NUL-terminated, cut to fit).
int test_http_get(const test_server* server, const char* path, char* out, size_t capacity);
// A metric's value from /metrics (the first line starting with `name` followed by a space or '{'
// matching `labels` if not NULL). NaN if absent.
double test_metric(const test_server* server, const char* name, const char* labels);

// Sleep, ms.
void test_sleep_ms(int ms);

#endif
