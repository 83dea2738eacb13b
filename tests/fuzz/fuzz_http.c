// libFuzzer target for the HTTP/WebSocket request path: the bytes a client sends to the HTTP port, fed
// through a real libwebsockets context on a real server in this process. The context has no listening
// socket; each input gets a new socket pair whose one end lws adopts exactly as it would an accepted
// connection (ws_adopt, lws_adopt_socket_vhost), and whose other end writes the input and then closes.
// So lws's HTTP parser, its WebSocket upgrade and framing, the server's HTTP callbacks (/healthz,
// /metrics, the file mount), the WebSocket transport, the sessions and every command run as in sinewd,
// with ASan and UBSan watching. libwebsockets itself is Debian's build, not instrumented: coverage guides
// the fuzzer through the server's code, and the seeds and the dictionary (tests/fuzz/http.dict) take it
// through lws's parser.
//
// After each input the connection must be gone and every session closed within a bounded time (a
// connection the server never closes is a finding too). The server lives across inputs, as it would.
#include "config.h"
#include "log.h"
#include "server.h"
#include "ws.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static uv_loop_t loop;
static server srv;

int LLVMFuzzerInitialize(int* argc, char*** argv);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
	(void)argc;
	(void)argv;
	uv_loop_init(&loop);
	server_config config;
	config_default(&config);
	config.demo = false;
	config.workers = 2;
	log_set_level(LOG_ERROR);
	config.limits.max_message_bytes = 65536;
	config.limits.max_bodies_per_world = 64;
	config.limits.max_joints_per_world = 64;
	config.limits.max_worlds = 16;
	config.limits.max_steps_per_request = 200;
	config.limits.handshake_timeout_ms = 1000;
	// A web root with a file, so the file mount is part of the path.
	static char root[64] = "/tmp/sinew-fuzz-http-XXXXXX";
	if (mkdtemp(root) != NULL)
	{
		char index[128];
		snprintf(index, sizeof(index), "%s/index.html", root);
		FILE* f = fopen(index, "w");
		if (f != NULL)
		{
			fputs("<!doctype html><title>fuzz</title>\n", f);
			fclose(f);
		}
		snprintf(config.web_root, sizeof(config.web_root), "%s", root);
	}
	if (server_init(&srv, &loop, &config) != 0)
	{
		abort();
	}
	int port = 0;
	if (ws_start(&srv, "127.0.0.1", -1, config.web_root, &srv.ws, &port) != 0)
	{
		fprintf(stderr, "fuzz_http: libwebsockets did not start\n");
		abort();
	}
	return 0;
}

// Run the loop until the adopted connection and every session are gone, at most `ms`.
static bool settle(int ms)
{
	uint64_t deadline = uv_hrtime() + (uint64_t)ms * 1000000u;
	while (uv_hrtime() < deadline)
	{
		uv_run(&loop, UV_RUN_NOWAIT);
		server_housekeeping(&srv);
		if (ws_connections(srv.ws) == 0 && srv.sessions.count == 0)
		{
			return true;
		}
	}
	return false;
}

// Read and drop what the server wrote, so it never blocks on a full socket.
static void drop_replies(int fd)
{
	char scratch[65536];
	while (recv(fd, scratch, sizeof(scratch), MSG_DONTWAIT) > 0)
	{
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
	{
		abort();
	}
	fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
	if (ws_adopt(srv.ws, sv[0]) != 0)
	{
		abort();
	}
	// The client writes its bytes as the loop lets the server read them, then closes.
	size_t sent = 0;
	for (int round = 0; round < 1000 && sent < size; ++round)
	{
		ssize_t n = send(sv[1], data + sent, size - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0)
		{
			sent += (size_t)n;
		}
		else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		{
			break; // the server closed already
		}
		uv_run(&loop, UV_RUN_NOWAIT);
		drop_replies(sv[1]);
	}
	// Let the server answer what it read, then the client goes away.
	for (int round = 0; round < 20; ++round)
	{
		uv_run(&loop, UV_RUN_NOWAIT);
		drop_replies(sv[1]);
	}
	close(sv[1]);
	if (!settle(4000))
	{
		fprintf(stderr, "fuzz_http: the connection or its session was not closed 4 s after the client left\n");
		abort();
	}
	return 0;
}
