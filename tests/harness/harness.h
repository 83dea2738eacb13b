// A real sinewd for the server tests and the server benchmark: start it on loopback ports chosen by the
// kernel (port 0, read back from --port-file, so runs never race for ports), talk to it with the C
// client, stop it with SIGTERM and check that it exits 0 (under ASan that includes "no leaks"). Every
// wait is bounded.
//
// A failure (sinewd does not come up, a connection or a request fails, a reply carries another code than
// expected) goes to the handler given to test_harness_configure: by default a message on stderr and exit
// status 1 (the benchmark); the server tests make it a cmocka failure of the running test (fixture.h).
#ifndef SINEW_TEST_HARNESS_H
#define SINEW_TEST_HARNESS_H

#include "sinew_client.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

// Default bound on every wait for one reply or message, ms (generous: sanitizer builds on a shared
// machine).
#define TEST_TIMEOUT_MS 10000

// Reports a failure; does not return (a cmocka failure jumps back to the test runner).
typedef void (*test_failure_handler)(const char* message);

// Where failures go (NULL: the message on stderr, then exit status 1) and the bound on each wait for one
// reply or message, ms (0: TEST_TIMEOUT_MS).
void test_harness_configure(test_failure_handler handler, int timeout_ms);
// Report a failure (printf-style) to the handler.
void test_harness_fail(const char* format, ...)
#if defined(__GNUC__)
	__attribute__((noreturn, format(printf, 1, 2)))
#endif
	;

typedef struct test_server
{
	pid_t pid;
	int tcp_port;
	int ws_port;
	char dir[64];
	char log_path[128];
} test_server;

// Start sinewd with --no-demo, ports 0 and the given extra arguments (NULL-terminated list, may be
// NULL). Fails if it does not come up within 10 s. TEST_WITH_DEMO among the extra arguments (it is not
// passed on) starts it with its demo world instead.
#define TEST_WITH_DEMO "--test-with-demo"
void test_server_start(test_server* server, const char* const* extra_args);
// SIGTERM and wait (at most 15 s, then SIGKILL). Returns the exit status (0 expected), or -1.
int test_server_stop(test_server* server);
// Print the server's log (for failures).
void test_server_dump_log(const test_server* server);
// Resident memory of the server process, bytes.
size_t test_server_rss(const test_server* server);
// CPU time the server process has used, user and system over all its threads, s (/proc/PID/stat, fields
// 14 and 15); NaN if it cannot be read.
double test_server_cpu_s(const test_server* server);

// Connect and shake hands; fails on error.
snc_client* test_connect(const test_server* server, snc_transport transport, const char* name, sinew_v1_Role role);
// The same with the client's options as given (the port is the server's for options.transport).
snc_client* test_connect_with(const test_server* server, snc_options options, const char* name, sinew_v1_Role role);
// Connect without a handshake.
snc_client* test_connect_raw(const test_server* server, snc_transport transport);

// Send and wait for the reply; fails on a transport error. Returns the reply's status code.
int32_t test_request(snc_client* client, sinew_v1_ClientMessage* message, snc_message* reply);
// The same, asserting the code; frees the reply unless `keep` is given.
void test_expect(snc_client* client, sinew_v1_ClientMessage* message, int32_t code, snc_message* keep);
// A command that must succeed and creates something: the id its reply gives.
uint64_t test_created(snc_client* client, sinew_v1_ClientMessage* message);
// Next message of a kind (others are dropped), within the timeout; fails otherwise.
void test_wait_for(snc_client* client, pb_size_t which_message, snc_message* out);
// Read until the server closes the connection; returns the Closing event's code (or 0 if none came).
int32_t test_wait_closed(snc_client* client, char* reason, size_t reason_capacity);

// Restore `world` from snapshot bytes: the reply's code (0 on success); its text into why (may be NULL).
int32_t test_restore(snc_client* client, uint64_t world, const uint8_t* bytes, size_t size, char* why,
					 size_t why_capacity);

// CreateArticulation.links of `count` LinkDefs (arg: a test_links_arg), for messages built by hand.
typedef struct test_links_arg
{
	const sinew_v1_LinkDef* links;
	int count;
} test_links_arg;
bool test_encode_links(pb_ostream_t* stream, const pb_field_t* field, void* const* arg);

// Command builders.
sinew_v1_ClientMessage test_command(pb_size_t which_command);
uint64_t test_create_world(snc_client* client, const char* name);
uint64_t test_create_body(snc_client* client, uint64_t world, double x, double y, double z);
// A chain of `links` 1 kg bodies along x, 1 m apart, hinged to the world and to each other about y: a
// world whose long Step keeps a worker busy. Returns the last body.
uint64_t test_create_hinged_chain(snc_client* client, uint64_t world, int links);
uint64_t test_create_hinge(snc_client* client, uint64_t world, uint64_t body_a, uint64_t body_b, double ax, double ay,
						   double az, double bx, double by, double bz);
// CreateArticulation with these links (sent one by one through the growing field). Returns the reply's
// code; on success the articulation's id and dof count.
int32_t test_create_articulation(snc_client* client, uint64_t world, const sinew_v1_LinkDef* links, int count,
								 uint64_t* id, uint32_t* dofs);
void test_step(snc_client* client, uint64_t world, uint32_t count);
void test_set_mode(snc_client* client, uint64_t world, sinew_v1_TimeMode mode, double rate);
void test_join(snc_client* client, uint64_t world, sinew_v1_Role role);
// Subscribe to a world's state at rate_hz with the include bits; returns the subscription id.
uint64_t test_subscribe(snc_client* client, uint64_t world, double rate_hz, uint32_t include);
// get_state with the include bits; the caller frees the reply.
void test_get_state(snc_client* client, uint64_t world, uint32_t include, snc_message* reply);

// A TCP connection to the server's HTTP port (the test fails if it cannot connect): the socket.
int test_http_connect(const test_server* server);
// The same from the local address `local` ("127.0.0.2": another client address on loopback).
int test_http_connect_from(const test_server* server, const char* local);
// HTTP GET on the server's HTTP port: status code, body into out (NUL-terminated, cut to fit).
int test_http_get(const test_server* server, const char* path, char* out, size_t capacity);
// The same with extra request headers ("Name: value\r\n" lines, may be NULL), the response's headers into
// headers (NUL-terminated, cut to fit; may be NULL) and its body, binary, into a malloc'd *body (free it).
int test_http_fetch(const test_server* server, const char* path, const char* extra_headers, char* headers,
					size_t headers_capacity, uint8_t** body, size_t* body_size);
// A metric's value from /metrics (the first line starting with `name` followed by a space or '{'
// matching `labels` if not NULL). NaN if absent.
double test_metric(const test_server* server, const char* name, const char* labels);

// Sleep, ms.
void test_sleep_ms(int ms);

#endif
