// The hostile client's infrastructure and its main: start the server, connect the bystanders, run every
// attack family, check after each attack, print the figures, stop the server (see hostile.h).
#include "hostile.h"

#include "wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

hostile_server target;
snc_client* bystander_tcp;
snc_client* bystander_ws;

static char summary[8192];
static size_t summary_size;
static double run_start_ms;

double now_ms(void)
{
	return (double)snc_now_ns() * 1e-6;
}

void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
	{
	}
}

static void add_summary(const char* line)
{
	int n = snprintf(summary + summary_size, sizeof(summary) - summary_size, "%s\n", line);
	if (n > 0 && summary_size + (size_t)n < sizeof(summary))
	{
		summary_size += (size_t)n;
	}
}

void figure(const char* format, ...)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "HOSTILE figure ");
	va_list args;
	va_start(args, format);
	vsnprintf(line + n, sizeof(line) - (size_t)n, format, args);
	va_end(args);
	printf("%s\n", line);
	fflush(stdout);
	add_summary(line);
}

// ---- the server ---------------------------------------------------------------------------------------

// The sinewd of this build, or HOSTILE_SINEWD (to attack another one, an older build say).
static const char* sinewd_path(void)
{
	const char* other = getenv("HOSTILE_SINEWD");
	return other != NULL && other[0] != '\0' ? other : SINEWD_PATH;
}

void server_dump_log(const hostile_server* s)
{
	FILE* f = fopen(s->log_path, "r");
	if (f == NULL)
	{
		return;
	}
	// The last 150 lines.
	static char lines[150][512];
	int count = 0;
	while (fgets(lines[count % 150], sizeof(lines[0]), f) != NULL)
	{
		count += 1;
	}
	fclose(f);
	fprintf(stderr, "---- sinewd log (%s, last lines) ----\n", s->log_path);
	for (int i = count > 150 ? count - 150 : 0; i < count; ++i)
	{
		fputs(lines[i % 150], stderr);
	}
	fprintf(stderr, "---- end of log ----\n");
}

void server_start(hostile_server* s, const char* const* extra)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/sinew-hostile-XXXXXX");
	if (mkdtemp(s->dir) == NULL)
	{
		hostile_fail("setup", "mkdtemp", "%s", strerror(errno));
	}
	snprintf(s->log_path, sizeof(s->log_path), "%s/sinewd.log", s->dir);
	snprintf(s->web_root, sizeof(s->web_root), "%s/web", s->dir);
	mkdir(s->web_root, 0700);
	char index[160];
	snprintf(index, sizeof(index), "%s/index.html", s->web_root);
	FILE* f = fopen(index, "w");
	if (f != NULL)
	{
		fputs("<!doctype html><title>hostile</title>\n", f);
		fclose(f);
	}
	char port_file[128];
	snprintf(port_file, sizeof(port_file), "%s/ports", s->dir);
	const char* path = sinewd_path();
	const char* argv[64];
	int n = 0;
	argv[n++] = path;
	argv[n++] = "--no-demo";
	argv[n++] = "--tcp-port";
	argv[n++] = "0";
	argv[n++] = "--ws-port";
	argv[n++] = "0";
	argv[n++] = "--port-file";
	argv[n++] = port_file;
	argv[n++] = "--web-root";
	argv[n++] = s->web_root;
	for (int i = 0; extra != NULL && extra[i] != NULL && n < 62; ++i)
	{
		argv[n++] = extra[i];
	}
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid < 0)
	{
		hostile_fail("setup", "fork", "%s", strerror(errno));
	}
	if (pid == 0)
	{
		// Never outlive the hostile client, whatever ends it (a failed check, a sanitizer report).
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		FILE* log = freopen(s->log_path, "w", stderr);
		(void)log;
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execv(path, (char* const*)argv);
		_exit(127);
	}
	s->pid = pid;
	for (int i = 0; i < 400; ++i)
	{
		f = fopen(port_file, "r");
		if (f != NULL)
		{
			int got = fscanf(f, "tcp=%d\nws=%d\n", &s->tcp_port, &s->ws_port);
			fclose(f);
			if (got == 2)
			{
				return;
			}
		}
		if (!server_alive(s))
		{
			server_dump_log(s);
			hostile_fail("setup", "start", "sinewd exited before it listened");
		}
		sleep_ms(50);
	}
	server_dump_log(s);
	hostile_fail("setup", "start", "sinewd did not write its port file within 20 s");
}

// The server's directory: its log, port file and web root.
static void remove_dir(const hostile_server* s)
{
	char path[192];
	snprintf(path, sizeof(path), "%s/index.html", s->web_root);
	unlink(path);
	rmdir(s->web_root);
	snprintf(path, sizeof(path), "%s/ports", s->dir);
	unlink(path);
	unlink(s->log_path);
	rmdir(s->dir);
}

bool server_alive(const hostile_server* s)
{
	if (s->pid <= 0)
	{
		return false;
	}
	int status = 0;
	return waitpid(s->pid, &status, WNOHANG) == 0;
}

int server_stop(hostile_server* s)
{
	if (s->pid <= 0)
	{
		return -1;
	}
	kill(s->pid, SIGTERM);
	int status = 0;
	for (int i = 0; i < 400; ++i)
	{
		pid_t r = waitpid(s->pid, &status, WNOHANG);
		if (r == s->pid)
		{
			s->pid = 0;
			int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			if (code != 0)
			{
				server_dump_log(s);
			}
			else
			{
				remove_dir(s); // a failed run keeps its log for a look
			}
			return code;
		}
		sleep_ms(50);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &status, 0);
	s->pid = 0;
	server_dump_log(s);
	return -1;
}

size_t server_rss(const hostile_server* s)
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

// ---- sockets ------------------------------------------------------------------------------------------

static int tcp_open_from(int port, int receive_buffer_bytes, const char* local);

int tcp_open(int port)
{
	return tcp_open_small(port, 0);
}

int tcp_open_small(int port, int receive_buffer_bytes)
{
	return tcp_open_from(port, receive_buffer_bytes, "127.0.0.1");
}

// From the local address `local` (the attacks' 127.0.0.1, or the bystanders').
static int tcp_open_from(int port, int receive_buffer_bytes, const char* local)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
	{
		return -1;
	}
	if (receive_buffer_bytes > 0)
	{
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer_bytes, sizeof(receive_buffer_bytes));
	}
	struct sockaddr_in addr;
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	inet_pton(AF_INET, local, &addr.sin_addr);
	if (bind(fd, (struct sockaddr*)&addr, sizeof(addr)) != 0)
	{
		close(fd);
		return -1;
	}
	addr.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
	if (connect(fd, (struct sockaddr*)&addr, sizeof(addr)) != 0)
	{
		close(fd);
		return -1;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

ssize_t send_some(int fd, const void* data, size_t size)
{
	ssize_t n = send(fd, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0)
	{
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
	}
	return n;
}

bool send_all(int fd, const void* data, size_t size, int timeout_ms)
{
	const uint8_t* p = data;
	double deadline = now_ms() + timeout_ms;
	while (size > 0)
	{
		ssize_t n = send_some(fd, p, size);
		if (n < 0)
		{
			return false;
		}
		p += n;
		size -= (size_t)n;
		if (size == 0)
		{
			break;
		}
		double left = deadline - now_ms();
		if (left <= 0)
		{
			return false;
		}
		struct pollfd pfd = { fd, POLLOUT, 0 };
		poll(&pfd, 1, (int)left + 1);
	}
	return true;
}

bool read_until_closed(int fd, char* keep, size_t cap, size_t* kept, int timeout_ms)
{
	size_t n = 0;
	double deadline = now_ms() + timeout_ms;
	char scratch[65536];
	bool closed = false;
	for (;;)
	{
		double left = deadline - now_ms();
		if (left <= 0)
		{
			break;
		}
		struct pollfd pfd = { fd, POLLIN, 0 };
		if (poll(&pfd, 1, (int)left + 1) <= 0)
		{
			continue;
		}
		ssize_t r = recv(fd, scratch, sizeof(scratch), 0);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
		{
			closed = true;
			break;
		}
		if (r > 0 && keep != NULL && n < cap)
		{
			size_t take = (size_t)r < cap - n ? (size_t)r : cap - n;
			memcpy(keep + n, scratch, take);
			n += take;
		}
	}
	if (kept != NULL)
	{
		*kept = n;
	}
	return closed;
}

bool drain(int fd)
{
	char scratch[65536];
	for (;;)
	{
		ssize_t r = recv(fd, scratch, sizeof(scratch), MSG_DONTWAIT);
		if (r > 0)
		{
			continue;
		}
		if (r == 0)
		{
			return false;
		}
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
	}
}

bool wait_closed(int fd, int timeout_ms)
{
	return read_until_closed(fd, NULL, 0, NULL, timeout_ms);
}

int http_get(int port, const char* path, char* out, size_t cap)
{
	if (cap > 0)
	{
		out[0] = '\0';
	}
	int fd = tcp_open_from(port, 0, BYSTANDER_ADDRESS);
	if (fd < 0)
	{
		return 0;
	}
	char request[512];
	int n = snprintf(request, sizeof(request), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
	if (!send_all(fd, request, (size_t)n, 5000))
	{
		close(fd);
		return 0;
	}
	static char all[1 << 20];
	size_t size = 0;
	double deadline = now_ms() + 10000;
	while (size < sizeof(all) - 1 && now_ms() < deadline)
	{
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 100) <= 0)
		{
			continue;
		}
		ssize_t r = recv(fd, all + size, sizeof(all) - 1 - size, 0);
		if (r <= 0)
		{
			break;
		}
		size += (size_t)r;
		all[size] = '\0';
		const char* body = strstr(all, "\r\n\r\n");
		const char* length = strstr(all, "content-length:");
		if (body != NULL && length != NULL && length < body &&
			size - (size_t)(body + 4 - all) >= (size_t)strtoull(length + 15, NULL, 10))
		{
			break;
		}
	}
	close(fd);
	all[size] = '\0';
	int status = 0;
	if (sscanf(all, "HTTP/1.1 %d", &status) != 1)
	{
		status = 0;
	}
	const char* body = strstr(all, "\r\n\r\n");
	snprintf(out, cap, "%s", body != NULL ? body + 4 : "");
	return status;
}

double metric(const char* name, const char* labels)
{
	static char text[1 << 20];
	if (http_get(target.ws_port, "/metrics", text, sizeof(text)) != 200)
	{
		return NAN;
	}
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
		return space != NULL ? strtod(space + 1, NULL) : NAN;
	}
	return NAN;
}

// ---- WebSocket framing --------------------------------------------------------------------------------

int ws_open(int port, const char* path, const char* protocol, const char* extra, int* status)
{
	if (status != NULL)
	{
		*status = 0;
	}
	int fd = tcp_open(port);
	if (fd < 0)
	{
		return -1;
	}
	char request[2048];
	int n = snprintf(request, sizeof(request),
					 "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
					 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n%s%s%s%s\r\n",
					 path, protocol != NULL ? "Sec-WebSocket-Protocol: " : "", protocol != NULL ? protocol : "",
					 protocol != NULL ? "\r\n" : "", extra != NULL ? extra : "");
	if (!send_all(fd, request, (size_t)n, 5000))
	{
		close(fd);
		return -1;
	}
	// Read the response headers only (byte by byte: what follows belongs to the WebSocket).
	char response[4096];
	size_t size = 0;
	double deadline = now_ms() + 5000;
	while (size < sizeof(response) - 1 && now_ms() < deadline)
	{
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 50) <= 0)
		{
			continue;
		}
		ssize_t r = recv(fd, response + size, 1, 0);
		if (r <= 0)
		{
			break;
		}
		size += 1;
		response[size] = '\0';
		if (size >= 4 && memcmp(response + size - 4, "\r\n\r\n", 4) == 0)
		{
			break;
		}
	}
	response[size] = '\0';
	int code = 0;
	if (sscanf(response, "HTTP/1.1 %d", &code) != 1)
	{
		code = 0;
	}
	if (status != NULL)
	{
		*status = code;
	}
	if (code != 101)
	{
		close(fd);
		return -1;
	}
	return fd;
}

size_t ws_frame(uint8_t* out, bool fin, int rsv, int opcode, bool masked, const void* payload, size_t len,
				uint64_t declared)
{
	uint64_t length = declared != UINT64_MAX ? declared : (uint64_t)len;
	size_t n = 0;
	out[n++] = (uint8_t)((fin ? 0x80 : 0) | ((rsv & 7) << 4) | (opcode & 0x0f));
	uint8_t mask_bit = masked ? 0x80 : 0;
	if (length < 126)
	{
		out[n++] = (uint8_t)(mask_bit | length);
	}
	else if (length <= 0xffff)
	{
		out[n++] = (uint8_t)(mask_bit | 126);
		out[n++] = (uint8_t)(length >> 8);
		out[n++] = (uint8_t)length;
	}
	else
	{
		out[n++] = (uint8_t)(mask_bit | 127);
		for (int i = 7; i >= 0; --i)
		{
			out[n++] = (uint8_t)(length >> (8 * i));
		}
	}
	static const uint8_t key[4] = { 0x37, 0xfa, 0x21, 0x3d };
	if (masked)
	{
		memcpy(out + n, key, 4);
		n += 4;
	}
	const uint8_t* p = payload;
	for (size_t i = 0; i < len; ++i)
	{
		out[n + i] = masked ? (uint8_t)(p[i] ^ key[i & 3]) : p[i];
	}
	return n + len;
}

// ---- protocol -----------------------------------------------------------------------------------------

uint8_t* encode_message(const sinew_v1_ClientMessage* m, size_t* size)
{
	uint8_t* bytes = NULL;
	if (!wire_encode_alloc(sinew_v1_ClientMessage_fields, m, 0, &bytes, size))
	{
		hostile_fail("setup", "encode", "a message could not be encoded");
	}
	return bytes;
}

uint8_t* encode_tcp(const sinew_v1_ClientMessage* m, size_t* size)
{
	uint8_t* bytes = NULL;
	size_t n = 0;
	if (!wire_encode_alloc(sinew_v1_ClientMessage_fields, m, WIRE_VARINT_MAX, &bytes, &n))
	{
		hostile_fail("setup", "encode", "a message could not be encoded");
	}
	uint8_t prefix[WIRE_VARINT_MAX];
	size_t p = wire_varint_put(prefix, n);
	memcpy(bytes + WIRE_VARINT_MAX - p, prefix, p);
	memmove(bytes, bytes + WIRE_VARINT_MAX - p, p + n);
	*size = p + n;
	return bytes;
}

uint8_t* handshake_bytes(bool websocket, const char* name, size_t* size)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.request_id = 1;
	m.which_command = sinew_v1_ClientMessage_handshake_tag;
	m.command.handshake.protocol_version = sinew_v1_ProtocolVersion_PROTOCOL_VERSION_CURRENT;
	m.command.handshake.role = sinew_v1_Role_ROLE_CONTROLLER;
	snprintf(m.command.handshake.client_name, sizeof(m.command.handshake.client_name), "%s", name);
	if (!websocket)
	{
		return encode_tcp(&m, size);
	}
	size_t n = 0;
	uint8_t* body = encode_message(&m, &n);
	uint8_t* frame = malloc(n + 14);
	*size = ws_frame(frame, true, 0, 2, true, body, n, UINT64_MAX);
	free(body);
	return frame;
}

// ---- checks -------------------------------------------------------------------------------------------

static const char* current_family = "setup";

void hostile_fail(const char* fam, const char* attack, const char* format, ...)
{
	char text[1024];
	va_list args;
	va_start(args, format);
	vsnprintf(text, sizeof(text), format, args);
	va_end(args);
	fprintf(stderr, "HOSTILE FAIL family=%s attack=\"%s\": %s\n", fam, attack, text);
	if (target.pid > 0)
	{
		server_dump_log(&target);
		kill(target.pid, SIGKILL);
		waitpid(target.pid, NULL, 0);
	}
	exit(1);
}

// How long a thread has waited, runnable, for a CPU, ns: the second field of a schedstat file of /proc (0
// when the kernel keeps no such count).
static uint64_t run_queue_wait_ns(const char* path)
{
	FILE* f = fopen(path, "r");
	if (f == NULL)
	{
		return 0;
	}
	unsigned long long running = 0;
	unsigned long long waiting = 0;
	int got = fscanf(f, "%llu %llu", &running, &waiting);
	fclose(f);
	return got == 2 ? (uint64_t)waiting : 0;
}

// sinewd's loop thread is its main thread.
static uint64_t server_loop_cpu_wait_ns(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)target.pid, (int)target.pid);
	return run_queue_wait_ns(path);
}

double server_cpu_wait_ms(void)
{
	return (double)server_loop_cpu_wait_ns() * 1e-6;
}

// The two threads a ping's round trip goes through: sinewd's loop thread and this one.
static uint64_t ping_path_cpu_wait_ns(void)
{
	return server_loop_cpu_wait_ns() + run_queue_wait_ns("/proc/thread-self/schedstat");
}

double ping_cpu_wait_ms;

double bystander_ping_ms(snc_client* c)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_ping_tag;
	snc_message reply;
	uint64_t waited0 = ping_path_cpu_wait_ns();
	uint64_t t0 = snc_now_ns();
	int err = snc_request(c, &m, &reply, 20000);
	uint64_t t1 = snc_now_ns();
	uint64_t waited1 = ping_path_cpu_wait_ns();
	if (err != 0)
	{
		hostile_fail(current_family, "bystander ping", "no answer: %s", snc_error_string(err));
	}
	int32_t code = snc_reply_code(&reply);
	snc_message_free(&reply);
	if (code != 0)
	{
		hostile_fail(current_family, "bystander ping", "answered %d", (int)code);
	}
	double wall_ms = (double)(t1 - t0) * 1e-6;
	double wait_ms = waited1 > waited0 ? (double)(waited1 - waited0) * 1e-6 : 0.0;
	ping_cpu_wait_ms = wait_ms < wall_ms ? wait_ms : wall_ms;
	return wall_ms - ping_cpu_wait_ms;
}

void family_begin(family* f, const char* name)
{
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->start_s = now_ms() * 1e-3;
	current_family = name;
	printf("HOSTILE begin family=%s\n", name);
	fflush(stdout);
}

static void note_cpu_wait(family* f)
{
	if (ping_cpu_wait_ms > f->most_cpu_wait_ms)
	{
		f->most_cpu_wait_ms = ping_cpu_wait_ms;
	}
}

void note_ping_under_load(family* f, const char* attack, double ms)
{
	note_cpu_wait(f);
	if (ms > f->worst_ping_under_load_ms)
	{
		f->worst_ping_under_load_ms = ms;
	}
	if (ms > HOSTILE_PING_BOUND_MS)
	{
		hostile_fail(f->name, attack,
					 "a bystander's ping took %.1f ms under load (bound %.0f ms; %.1f ms more waiting for a CPU "
					 "not counted)",
					 ms, HOSTILE_PING_BOUND_MS, ping_cpu_wait_ms);
	}
}

void check_alive(family* f, const char* attack)
{
	f->attacks += 1;
	if (!server_alive(&target))
	{
		hostile_fail(f->name, attack, "sinewd is dead");
	}
	char body[256];
	double t0 = now_ms();
	int status = http_get(target.ws_port, "/healthz", body, sizeof(body));
	double health_ms = now_ms() - t0;
	if (status != 200 || strcmp(body, "ok\n") != 0)
	{
		hostile_fail(f->name, attack, "/healthz answered %d \"%s\" after %.0f ms", status, body, health_ms);
	}
	double ping = bystander_ping_ms(bystander_tcp);
	double waited = ping_cpu_wait_ms;
	note_cpu_wait(f);
	double ping_ws = bystander_ping_ms(bystander_ws);
	note_cpu_wait(f);
	if (ping_ws > ping)
	{
		ping = ping_ws;
		waited = ping_cpu_wait_ms;
	}
	if (ping > f->worst_ping_ms)
	{
		f->worst_ping_ms = ping;
	}
	if (ping > HOSTILE_PING_BOUND_MS)
	{
		hostile_fail(f->name, attack,
					 "a bystander's ping took %.1f ms (bound %.0f ms; %.1f ms more waiting for a CPU not counted)",
					 ping, HOSTILE_PING_BOUND_MS, waited);
	}
}

void family_end(family* f)
{
	// Every connection an attack opened is gone again (only the two bystanders remain).
	double open = NAN;
	double deadline = now_ms() + HOSTILE_CLOSE_WAIT_MS;
	for (;;)
	{
		open = metric("sinew_connections", "transport=\"tcp\"") + metric("sinew_connections", "transport=\"ws\"");
		if (open == 2.0 || now_ms() > deadline)
		{
			break;
		}
		sleep_ms(50);
	}
	if (open != 2.0)
	{
		hostile_fail(f->name, "after the family", "%.0f sessions open, expected the 2 bystanders", open);
	}
	// And the HTTP port holds only the WebSocket bystander and the connection asking for the metrics.
	double http = NAN;
	while (now_ms() < deadline)
	{
		http = metric("sinew_http_connections", NULL);
		if (http == 2.0)
		{
			break;
		}
		sleep_ms(50);
	}
	if (http != 2.0)
	{
		hostile_fail(f->name, "after the family", "the HTTP port holds %.0f connections, expected 2", http);
	}
	char line[512];
	snprintf(line, sizeof(line),
			 "HOSTILE family=%s attacks=%d worst_ping_ms=%.1f worst_ping_under_load_ms=%.1f "
			 "most_cpu_wait_not_counted_ms=%.1f seconds=%.1f rss_mib=%.1f",
			 f->name, f->attacks, f->worst_ping_ms, f->worst_ping_under_load_ms, f->most_cpu_wait_ms,
			 now_ms() * 1e-3 - f->start_s, (double)server_rss(&target) / 1048576.0);
	printf("%s\n", line);
	fflush(stdout);
	add_summary(line);
	current_family = "between families";
}

static snc_client* connect_bystander(snc_transport transport, const char* name)
{
	snc_options o = snc_default_options();
	o.transport = transport;
	o.port = transport == SNC_WS ? target.ws_port : target.tcp_port;
	o.timeout_ms = 10000;
	o.local_address = BYSTANDER_ADDRESS;
	snc_client* c = NULL;
	int err = snc_connect(&o, &c);
	if (err != 0)
	{
		hostile_fail("setup", name, "connect: %s", snc_error_string(err));
	}
	err = snc_handshake(c, name, NULL, sinew_v1_Role_ROLE_CONTROLLER, NULL);
	if (err != 0)
	{
		hostile_fail("setup", name, "handshake: %s", snc_error_string(err));
	}
	return c;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	run_start_ms = now_ms();
	// Limits small enough that every one of them is reached, timeouts short enough to wait for.
	static const char* const args[] = {
		"--max-connections",
		"48",
		"--max-kept-worlds-per-client",
		"8",
		"--kept-world-idle-ms",
		"1000",
		"--max-worlds",
		"128",
		"--max-worlds-per-client",
		"32",
		"--max-bodies-per-world",
		"4000",
		"--max-joints-per-world",
		"64",
		"--max-subscriptions-per-client",
		"8",
		"--max-message-bytes",
		"1048576",
		"--handshake-timeout-ms",
		"2000",
		"--min-receive-bytes-per-s",
		"262144",
		"--reply-timeout-ms",
		HOSTILE_STRING(HOSTILE_REPLY_TIMEOUT_MS),
		"--socket-send-buffer-bytes",
		HOSTILE_STRING(HOSTILE_SOCKET_SEND_BUFFER_BYTES),
		"--log-level",
		"warn",
		NULL,
	};
	server_start(&target, args);
	printf("HOSTILE sinewd %s on tcp=%d ws=%d (ping bound %.0f ms)\n", sinewd_path(), target.tcp_port, target.ws_port,
		   HOSTILE_PING_BOUND_MS);
	bystander_tcp = connect_bystander(SNC_TCP, "bystander-tcp");
	bystander_ws = connect_bystander(SNC_WS, "bystander-ws");
	figure("baseline_rss_mib=%.1f", (double)server_rss(&target) / 1048576.0);

	// HOSTILE_FAMILIES=http,load runs only those (to look at one family); all by default.
	static const struct
	{
		const char* name;
		void (*run)(void);
	} families[] = {
		{ "http", attack_http },           { "websocket", attack_websocket }, { "protocol", attack_protocol },
		{ "strings", attack_strings },     { "numbers", attack_numbers },     { "floods", attack_floods },
		{ "slowloris", attack_slowloris }, { "load", attack_load },
	};
	const char* only = getenv("HOSTILE_FAMILIES");
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); ++i)
	{
		if (only == NULL || strstr(only, families[i].name) != NULL)
		{
			families[i].run();
		}
	}

	snc_close(bystander_tcp);
	snc_close(bystander_ws);
	double stop_start = now_ms();
	int code = server_stop(&target);
	printf("\nHOSTILE summary (%.1f s; the server exited %d after %.0f ms of shutdown)\n%s",
		   (now_ms() - run_start_ms) * 1e-3, code, now_ms() - stop_start, summary);
	if (code != 0)
	{
		fprintf(stderr, "HOSTILE FAIL: sinewd exited with %d at the end\n", code);
		return 1;
	}
	printf("HOSTILE passed\n");
	return 0;
}
