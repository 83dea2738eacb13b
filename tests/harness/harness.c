// A real sinewd for tests and benchmarks (see harness.h).
#define _POSIX_C_SOURCE 200809L // mkdtemp, fork, kill, waitpid, nanosleep, sockets
#include "harness.h"

#include "wire.h"

#include <pb_encode.h>

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

static test_failure_handler failure_handler = NULL;
static int timeout_ms = TEST_TIMEOUT_MS;

void test_harness_configure(test_failure_handler handler, int timeout)
{
	failure_handler = handler;
	timeout_ms = timeout > 0 ? timeout : TEST_TIMEOUT_MS;
}

void test_harness_fail(const char* format, ...)
{
	char message[512];
	va_list args;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	if (failure_handler != NULL)
	{
		failure_handler(message);
	}
	fprintf(stderr, "%s\n", message);
	exit(1);
}

void test_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
	{
	}
}

void test_server_dump_log(const test_server* s)
{
	FILE* f = fopen(s->log_path, "r");
	if (f == NULL)
	{
		return;
	}
	fprintf(stderr, "---- sinewd log (%s) ----\n", s->log_path);
	char line[1024];
	int n = 0;
	while (fgets(line, sizeof(line), f) != NULL && n++ < 400)
	{
		fputs(line, stderr);
	}
	fclose(f);
	fprintf(stderr, "---- end of log ----\n");
}

void test_server_start(test_server* s, const char* const* extra)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/sinew-test-XXXXXX");
	if (mkdtemp(s->dir) == NULL)
	{
		test_harness_fail("mkdtemp failed: %s", strerror(errno));
	}
	snprintf(s->log_path, sizeof(s->log_path), "%s/sinewd.log", s->dir);
	char port_file[128];
	snprintf(port_file, sizeof(port_file), "%s/ports", s->dir);
	const char* argv[64];
	int n = 0;
	bool demo = false;
	for (int i = 0; extra != NULL && extra[i] != NULL; ++i)
	{
		demo = demo || strcmp(extra[i], TEST_WITH_DEMO) == 0;
	}
	argv[n++] = SINEWD_PATH;
	if (!demo)
	{
		argv[n++] = "--no-demo";
	}
	argv[n++] = "--tcp-port";
	argv[n++] = "0";
	argv[n++] = "--ws-port";
	argv[n++] = "0";
	argv[n++] = "--port-file";
	argv[n++] = port_file;
	for (int i = 0; extra != NULL && extra[i] != NULL && n < 62; ++i)
	{
		if (strcmp(extra[i], TEST_WITH_DEMO) != 0)
		{
			argv[n++] = extra[i];
		}
	}
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid < 0)
	{
		test_harness_fail("fork failed: %s", strerror(errno));
	}
	if (pid == 0)
	{
		FILE* log = freopen(s->log_path, "w", stderr);
		(void)log;
		execv(SINEWD_PATH, (char* const*)argv);
		_exit(127);
	}
	s->pid = pid;
	for (int i = 0; i < 200; ++i)
	{
		FILE* f = fopen(port_file, "r");
		if (f != NULL)
		{
			int got = fscanf(f, "tcp=%d\nws=%d\n", &s->tcp_port, &s->ws_port);
			fclose(f);
			if (got == 2)
			{
				return;
			}
		}
		int status = 0;
		if (waitpid(pid, &status, WNOHANG) == pid)
		{
			s->pid = 0;
			test_server_dump_log(s);
			test_harness_fail("sinewd exited before it listened (status %d)", status);
		}
		test_sleep_ms(50);
	}
	test_server_dump_log(s);
	test_harness_fail("sinewd did not write its port file within 10 s");
}

int test_server_stop(test_server* s)
{
	if (s->pid <= 0)
	{
		return -1;
	}
	kill(s->pid, SIGTERM);
	int status = 0;
	for (int i = 0; i < 300; ++i)
	{
		pid_t r = waitpid(s->pid, &status, WNOHANG);
		if (r == s->pid)
		{
			s->pid = 0;
			int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			if (code != 0)
			{
				test_server_dump_log(s);
			}
			else
			{
				// Clean up after a clean run; a failed one keeps its log for a look.
				char path[160];
				snprintf(path, sizeof(path), "%s/ports", s->dir);
				unlink(path);
				unlink(s->log_path);
				rmdir(s->dir);
			}
			return code;
		}
		test_sleep_ms(50);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &status, 0);
	s->pid = 0;
	test_server_dump_log(s);
	return -1;
}

double test_server_cpu_s(const test_server* s)
{
	char path[64], line[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)s->pid);
	FILE* f = fopen(path, "r");
	if (f == NULL)
	{
		return NAN;
	}
	const bool read = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	const char* p = read ? strrchr(line, ')') : NULL; // the name may hold spaces; the fields after it do not
	unsigned long long utime = 0, stime = 0;
	if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
	{
		return NAN;
	}
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

size_t test_server_rss(const test_server* s)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)s->pid);
	FILE* f = fopen(path, "r");
	if (f == NULL)
	{
		return 0;
	}
	char line[256];
	size_t kb = 0;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		if (strncmp(line, "VmRSS:", 6) == 0)
		{
			kb = (size_t)strtoull(line + 6, NULL, 10);
		}
	}
	fclose(f);
	return kb * 1024;
}


static snc_client* connect_options(const test_server* s, snc_options o)
{
	o.port = o.transport == SNC_WS ? s->ws_port : s->tcp_port;
	snc_client* c = NULL;
	int err = snc_connect(&o, &c);
	if (err != 0)
	{
		test_harness_fail("connect to port %d failed: %s", o.port, snc_error_string(err));
	}
	return c;
}

snc_client* test_connect_raw(const test_server* s, snc_transport transport)
{
	snc_options o = snc_default_options();
	o.transport = transport;
	o.timeout_ms = timeout_ms;
	return connect_options(s, o);
}

static void handshake(snc_client* c, const char* name, sinew_v1_Role role)
{
	sinew_v1_HandshakeReply reply;
	int err = snc_handshake(c, name, NULL, role, &reply);
	if (err != 0)
	{
		test_harness_fail("handshake failed: %s (%s)", snc_error_string(err), reply.status.message);
	}
}

snc_client* test_connect(const test_server* s, snc_transport transport, const char* name, sinew_v1_Role role)
{
	snc_client* c = test_connect_raw(s, transport);
	handshake(c, name, role);
	return c;
}

snc_client* test_connect_with(const test_server* s, snc_options options, const char* name, sinew_v1_Role role)
{
	snc_client* c = connect_options(s, options);
	handshake(c, name, role);
	return c;
}

int32_t test_request(snc_client* c, sinew_v1_ClientMessage* m, snc_message* reply)
{
	int err = snc_request(c, m, reply, timeout_ms);
	if (err != 0)
	{
		test_harness_fail("request (command %u) failed: %s", (unsigned)m->which_command, snc_error_string(err));
	}
	return snc_reply_code(reply);
}

void test_expect(snc_client* c, sinew_v1_ClientMessage* m, int32_t code, snc_message* keep)
{
	snc_message reply;
	int32_t got = test_request(c, m, &reply);
	if (got != code)
	{
		char text[300];
		snprintf(text, sizeof(text), "%s", snc_reply_text(&reply));
		snc_message_free(&reply);
		test_harness_fail("command %u answered %d (%s), expected %d", (unsigned)m->which_command, (int)got, text,
						  (int)code);
	}
	if (keep != NULL)
	{
		*keep = reply;
	}
	else
	{
		snc_message_free(&reply);
	}
}

void test_wait_for(snc_client* c, pb_size_t which, snc_message* out)
{
	uint64_t deadline = snc_now_ns() + (uint64_t)timeout_ms * 1000000u;
	for (;;)
	{
		uint64_t now = snc_now_ns();
		if (now >= deadline)
		{
			test_harness_fail("no message of kind %u within %d ms", (unsigned)which, timeout_ms);
		}
		int err = snc_receive(c, out, (int)((deadline - now) / 1000000u) + 1);
		if (err != 0)
		{
			test_harness_fail("waiting for message kind %u: %s", (unsigned)which, snc_error_string(err));
		}
		if (out->msg.which_message == which)
		{
			return;
		}
		snc_message_free(out);
	}
}

int32_t test_wait_closed(snc_client* c, char* reason, size_t cap)
{
	int32_t code = 0;
	if (reason != NULL && cap > 0)
	{
		reason[0] = '\0';
	}
	uint64_t deadline = snc_now_ns() + (uint64_t)timeout_ms * 1000000u;
	for (;;)
	{
		uint64_t now = snc_now_ns();
		if (now >= deadline)
		{
			test_harness_fail("the server did not close the connection within %d ms", timeout_ms);
		}
		snc_message m;
		int err = snc_receive(c, &m, (int)((deadline - now) / 1000000u) + 1);
		if (err == -ECONNRESET || err == -EPIPE)
		{
			return code;
		}
		if (err != 0)
		{
			test_harness_fail("waiting for the close: %s", snc_error_string(err));
		}
		if (m.msg.which_message == sinew_v1_ServerMessage_event_tag &&
			m.msg.message.event.which_event == sinew_v1_Event_closing_tag)
		{
			code = m.msg.message.event.event.closing.status.code;
			if (reason != NULL)
			{
				snprintf(reason, cap, "%s", m.msg.message.event.event.closing.status.message);
			}
		}
		snc_message_free(&m);
	}
}

uint64_t test_created(snc_client* c, sinew_v1_ClientMessage* m)
{
	snc_message reply;
	test_expect(c, m, 0, &reply);
	uint64_t id = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	return id;
}

sinew_v1_ClientMessage test_command(pb_size_t which)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = which;
	return m;
}

uint64_t test_create_world(snc_client* c, const char* name)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "%s", name);
	return test_created(c, &m);
}

uint64_t test_create_body(snc_client* c, uint64_t world, double x, double y, double z)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_body_tag);
	m.command.create_body.world_id = world;
	m.command.create_body.has_body = true;
	m.command.create_body.body.has_pose = true;
	m.command.create_body.body.pose.has_position = true;
	m.command.create_body.body.pose.position.x = x;
	m.command.create_body.body.pose.position.y = y;
	m.command.create_body.body.pose.position.z = z;
	return test_created(c, &m);
}

uint64_t test_create_hinge(snc_client* c, uint64_t world, uint64_t body_a, uint64_t body_b, double ax, double ay,
						   double az, double bx, double by, double bz)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_joint_tag);
	sinew_v1_CreateJoint* j = &m.command.create_joint;
	j->world_id = world;
	j->has_base = true;
	j->base.body_a = body_a;
	j->base.body_b = body_b;
	// Hinge axis (frame x) along world y: rotate x onto y about z.
	double h = sqrt(0.5);
	j->base.has_frame_a = true;
	j->base.frame_a.has_position = true;
	j->base.frame_a.position = (sinew_v1_Vec3){ ax, ay, az };
	j->base.frame_a.has_rotation = true;
	j->base.frame_a.rotation = (sinew_v1_Quat){ 0, 0, h, h };
	j->base.has_frame_b = true;
	j->base.frame_b.has_position = true;
	j->base.frame_b.position = (sinew_v1_Vec3){ bx, by, bz };
	j->base.frame_b.has_rotation = true;
	j->base.frame_b.rotation = (sinew_v1_Quat){ 0, 0, h, h };
	j->which_type = sinew_v1_CreateJoint_hinge_tag;
	return test_created(c, &m);
}

uint64_t test_create_hinged_chain(snc_client* c, uint64_t world, int links)
{
	uint64_t previous = 0;
	for (int i = 0; i < links; ++i)
	{
		uint64_t b = test_create_body(c, world, 0.5 + i, 0, 0);
		test_create_hinge(c, world, previous, b, previous == 0 ? 0.0 : 0.5, 0, 0, -0.5, 0, 0);
		previous = b;
	}
	return previous;
}

int32_t test_restore(snc_client* c, uint64_t world, const uint8_t* bytes, size_t size, char* why, size_t cap)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_restore_tag);
	m.command.restore.world_id = world;
	wire_bytes data = { bytes, size };
	m.command.restore.data.funcs.encode = wire_encode_bytes;
	m.command.restore.data.arg = &data;
	snc_message reply;
	int32_t code = test_request(c, &m, &reply);
	if (why != NULL)
	{
		snprintf(why, cap, "%s", snc_reply_text(&reply));
	}
	snc_message_free(&reply);
	return code;
}

bool test_encode_links(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const test_links_arg* list = *arg;
	for (int i = 0; i < list->count; ++i)
	{
		if (!pb_encode_tag_for_field(stream, field) ||
			!pb_encode_submessage(stream, sinew_v1_LinkDef_fields, list->links + i))
		{
			return false;
		}
	}
	return true;
}

int32_t test_create_articulation(snc_client* c, uint64_t world, const sinew_v1_LinkDef* links, int count, uint64_t* id,
								 uint32_t* dofs)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_articulation_tag);
	m.command.create_articulation.world_id = world;
	test_links_arg list = { links, count };
	m.command.create_articulation.links.funcs.encode = test_encode_links;
	m.command.create_articulation.links.arg = &list;
	snc_message reply;
	int32_t code = test_request(c, &m, &reply);
	if (code == 0)
	{
		*id = reply.msg.message.reply.result.created.id;
		*dofs = reply.msg.message.reply.result.created.dof_count;
	}
	snc_message_free(&reply);
	return code;
}

void test_step(snc_client* c, uint64_t world, uint32_t count)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_step_tag);
	m.command.step.world_id = world;
	m.command.step.count = count;
	test_expect(c, &m, 0, NULL);
}

void test_set_mode(snc_client* c, uint64_t world, sinew_v1_TimeMode mode, double rate)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_set_time_mode_tag);
	m.command.set_time_mode.world_id = world;
	m.command.set_time_mode.has_time = true;
	m.command.set_time_mode.time.mode = mode;
	m.command.set_time_mode.time.has_rate = true;
	m.command.set_time_mode.time.rate = rate;
	test_expect(c, &m, 0, NULL);
}

void test_join(snc_client* c, uint64_t world, sinew_v1_Role role)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_join_world_tag);
	m.command.join_world.world_id = world;
	m.command.join_world.role = role;
	test_expect(c, &m, 0, NULL);
}

uint64_t test_subscribe(snc_client* c, uint64_t world, double rate_hz, uint32_t include)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_subscribe_tag);
	m.command.subscribe.world_id = world;
	m.command.subscribe.rate_hz = rate_hz;
	m.command.subscribe.include = include;
	return test_created(c, &m);
}

void test_get_state(snc_client* c, uint64_t world, uint32_t include, snc_message* reply)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_get_state_tag);
	m.command.get_state.world_id = world;
	m.command.get_state.include = include;
	test_expect(c, &m, 0, reply);
}

int test_http_connect(const test_server* s)
{
	return test_http_connect_from(s, "127.0.0.1");
}

int test_http_connect_from(const test_server* s, const char* local)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in addr;
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	inet_pton(AF_INET, local, &addr.sin_addr);
	if (fd < 0 || bind(fd, (struct sockaddr*)&addr, sizeof(addr)) != 0)
	{
		test_harness_fail("cannot bind to %s: %s", local, strerror(errno));
	}
	addr.sin_port = htons((uint16_t)s->ws_port);
	inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
	if (connect(fd, (struct sockaddr*)&addr, sizeof(addr)) != 0)
	{
		test_harness_fail("HTTP connect failed: %s", strerror(errno));
	}
	return fd;
}

int test_http_fetch(const test_server* s, const char* path, const char* extra_headers, char* headers,
					size_t headers_capacity, uint8_t** body, size_t* body_size)
{
	int fd = test_http_connect(s);
	char request[1024];
	int n = snprintf(request, sizeof(request), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n",
					 path, extra_headers != NULL ? extra_headers : "");
	if (n < 0 || n >= (int)sizeof(request) || send(fd, request, (size_t)n, MSG_NOSIGNAL) != n)
	{
		test_harness_fail("HTTP send failed");
	}
	size_t size = 0, capacity = 1 << 20;
	char* all = malloc(capacity + 1);
	uint64_t deadline = snc_now_ns() + (uint64_t)timeout_ms * 1000000u;
	size_t header_end = 0, want = SIZE_MAX;
	while (snc_now_ns() < deadline)
	{
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 100) <= 0)
		{
			continue;
		}
		if (size == capacity)
		{
			capacity *= 2;
			all = realloc(all, capacity + 1);
		}
		ssize_t r = recv(fd, all + size, capacity - size, 0);
		if (r <= 0)
		{
			break;
		}
		size += (size_t)r;
		all[size] = '\0';
		// Stop once the body promised by content-length has arrived (lws keeps the connection a while).
		if (header_end == 0)
		{
			for (size_t i = 3; i < size; ++i)
			{
				if (memcmp(all + i - 3, "\r\n\r\n", 4) == 0)
				{
					header_end = i + 1;
					char saved = all[header_end];
					all[header_end] = '\0';
					const char* length = strstr(all, "content-length:");
					want = length != NULL ? (size_t)strtoull(length + 15, NULL, 10) : SIZE_MAX;
					all[header_end] = saved;
					break;
				}
			}
		}
		if (header_end > 0 && size - header_end >= want)
		{
			break;
		}
	}
	close(fd);
	all[size] = '\0';
	int status = 0;
	sscanf(all, "HTTP/1.1 %d", &status);
	size_t head = header_end > 0 ? header_end : size;
	if (headers != NULL && headers_capacity > 0)
	{
		snprintf(headers, headers_capacity, "%.*s", (int)head, all);
	}
	if (body != NULL)
	{
		*body_size = size - head;
		*body = malloc(*body_size + 1);
		memcpy(*body, all + head, *body_size);
		(*body)[*body_size] = 0;
	}
	free(all);
	return status;
}

int test_http_get(const test_server* s, const char* path, char* out, size_t cap)
{
	uint8_t* body = NULL;
	size_t size = 0;
	int status = test_http_fetch(s, path, NULL, NULL, 0, &body, &size);
	snprintf(out, cap, "%s", (const char*)body);
	free(body);
	return status;
}

double test_metric(const test_server* s, const char* name, const char* labels)
{
	char* text = malloc(1 << 20);
	test_http_get(s, "/metrics", text, 1 << 20);
	double value = NAN;
	size_t n = strlen(name);
	for (char* line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n"))
	{
		if (strncmp(line, name, n) != 0 || (line[n] != ' ' && line[n] != '{'))
		{
			continue;
		}
		if (labels != NULL && strstr(line, labels) == NULL)
		{
			continue;
		}
		const char* space = strrchr(line, ' ');
		value = space != NULL ? strtod(space + 1, NULL) : NAN;
		break;
	}
	free(text);
	return value;
}
