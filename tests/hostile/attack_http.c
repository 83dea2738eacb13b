// Malformed and oversized HTTP requests on the HTTP/WebSocket port: header names and sizes lws refuses,
// NUL bytes raw and as %00, odd methods and versions, path traversal on the dashboard's file mount,
// truncation, smuggling-shaped lengths, pipelining and garbage. Each request goes on its own connection;
// whatever the answer (or a close without one), the server must live on. A traversal must never serve a
// file from outside the web root.
#include "hostile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct http_attack
{
	const char* name;
	const char* bytes;
	size_t size; // 0: strlen(bytes)
} http_attack;

#define RAW_(name, literal)                                                                                            \
	{                                                                                                                  \
		name, literal, sizeof(literal) - 1                                                                             \
	} // may hold NUL bytes
#define TEXT_(name, text)                                                                                              \
	{                                                                                                                  \
		name, text, 0                                                                                                  \
	}

static const http_attack attacks[] = {
	TEXT_("header named X-A:", "GET /healthz HTTP/1.1\r\nHost: a\r\nX-A: a\r\n\r\n"),
	TEXT_("header name with two colons", "GET /healthz HTTP/1.1\r\nX-A:: a\r\n\r\n"),
	TEXT_("header without a colon", "GET /healthz HTTP/1.1\r\nNoColonHere\r\n\r\n"),
	TEXT_("empty header name", "GET /healthz HTTP/1.1\r\n: value\r\n\r\n"),
	TEXT_("obsolete line folding", "GET /healthz HTTP/1.1\r\nX-A: a\r\n b\r\n\r\n"),
	TEXT_("%00 in a file path", "GET /a%00.js HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("%00 after /healthz", "GET /healthz%00 HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("%00 in /metrics' query", "GET /metrics?x=%ff%fe%00 HTTP/1.1\r\nHost: a\r\n\r\n"),
	RAW_("raw NUL in the path", "GET /a\0b HTTP/1.1\r\nHost: a\r\n\r\n"),
	RAW_("raw NUL in a header name", "GET /healthz HTTP/1.1\r\nX-\0A: a\r\n\r\n"),
	RAW_("raw NUL in a header value", "GET /healthz HTTP/1.1\r\nX-A: a\0b\r\n\r\n"),
	RAW_("raw NUL as the method", "\0\0\0 /healthz HTTP/1.1\r\n\r\n"),
	TEXT_("../ traversal", "GET /../../../../../../etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("%2e%2e traversal", "GET /%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("%2f traversal", "GET /..%2f..%2f..%2f..%2fetc%2fpasswd HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("overlong UTF-8 dots", "GET /%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("backslash traversal", "GET /..\\..\\..\\etc\\passwd HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("absolute URI", "GET http://evil.example/healthz HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("POST with a body", "POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"),
	TEXT_("PUT", "PUT /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n"),
	TEXT_("DELETE", "DELETE / HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("PATCH", "PATCH /healthz HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("TRACE", "TRACE / HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("CONNECT", "CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("HEAD", "HEAD /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
	TEXT_("unknown method", "FOO /healthz HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("lower-case method", "get /healthz HTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("tab for a space", "GET\t/healthz\tHTTP/1.1\r\nHost: a\r\n\r\n"),
	TEXT_("HTTP/0.9", "GET /\r\n\r\n"),
	TEXT_("HTTP/9.9", "GET /healthz HTTP/9.9\r\nHost: a\r\n\r\n"),
	RAW_("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x12\x04\x00\x00\x00\x00\x00"),
	TEXT_("h2c upgrade",
		  "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, HTTP2-Settings\r\n"
		  "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n"),
	TEXT_("truncated method", "GE"),
	TEXT_("truncated version", "GET /healthz HTTP/1."),
	TEXT_("truncated headers", "GET /healthz HTTP/1.1\r\nHost: a"),
	TEXT_("negative Content-Length", "POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n"),
	TEXT_("huge Content-Length", "POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\nx"),
	TEXT_("two Content-Lengths",
		  "POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 9\r\n\r\nx"),
	TEXT_("bad chunk size",
		  "POST /healthz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n0\r\n\r\n"),
	TEXT_("chunk of 2^64 - 1 bytes",
		  "POST /healthz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "ffffffffffffffff\r\nx\r\n"),
	TEXT_("chunked and Content-Length",
		  "POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n"
		  "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /metrics HTTP/1.1\r\n\r\n"),
	TEXT_("two requests with bodies, pipelined",
		  "POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\na"
		  "POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\na"),
	TEXT_("two GETs with bodies, pipelined",
		  "GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nabcd"
		  "GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nabcd"),
	TEXT_("a body, then a misspelt Transfer-Encoding with a body",
		  "POST /hethz HTTP/1.1\r\nContent-Length: 4\r\nTransfncoding: chunked\r\n\r\n4\r\na"
		  "POST /hethz HTTP/1.1\r\nContent-Length: 4\r\nTransfncoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n"
		  "bcd\r\n0\r\n\r\n"),
	TEXT_("Expect: 100-continue",
		  "POST /healthz HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n"
		  "Content-Length: 1000000\r\n\r\n"),
	TEXT_("many byte ranges of a file", NULL),
	TEXT_("oversized header value (8 KiB)", NULL),
	TEXT_("200 headers", NULL),
	TEXT_("16 KiB URI", NULL),
	TEXT_("50 Host headers", NULL),
	TEXT_("only line ends", NULL),
	TEXT_("binary garbage", NULL),
	TEXT_("100 pipelined requests", NULL),
};

// The generated requests (those with NULL bytes above), built into buf.
static size_t generate(const char* name, char* buf, size_t cap)
{
	size_t n = 0;
#define PUT_(...) n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__)
	if (strcmp(name, "many byte ranges of a file") == 0)
	{
		PUT_("GET /index.html HTTP/1.1\r\nHost: a\r\nRange: bytes=0-0");
		for (int i = 1; i < 600; ++i)
		{
			PUT_(",%d-%d", i % 40, i % 40);
		}
		PUT_("\r\n\r\n");
	}
	else if (strcmp(name, "oversized header value (8 KiB)") == 0)
	{
		PUT_("GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: ");
		memset(buf + n, 'a', 8192);
		n += 8192;
		PUT_("\r\n\r\n");
	}
	else if (strcmp(name, "200 headers") == 0)
	{
		PUT_("GET /healthz HTTP/1.1\r\nHost: a\r\n");
		for (int i = 0; i < 200; ++i)
		{
			PUT_("X-H%d: %090d\r\n", i, i);
		}
		PUT_("\r\n");
	}
	else if (strcmp(name, "16 KiB URI") == 0)
	{
		PUT_("GET /");
		memset(buf + n, 'u', 16384);
		n += 16384;
		PUT_(" HTTP/1.1\r\nHost: a\r\n\r\n");
	}
	else if (strcmp(name, "50 Host headers") == 0)
	{
		PUT_("GET /healthz HTTP/1.1\r\n");
		for (int i = 0; i < 50; ++i)
		{
			PUT_("Host: h%d\r\n", i);
		}
		PUT_("\r\n");
	}
	else if (strcmp(name, "only line ends") == 0)
	{
		for (int i = 0; i < 2000; ++i)
		{
			PUT_("\r\n");
		}
	}
	else if (strcmp(name, "binary garbage") == 0)
	{
		uint64_t x = 0x243f6a8885a308d3ull;
		for (int i = 0; i < 8192; ++i)
		{
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[n++] = (char)(x >> 32);
		}
	}
	else if (strcmp(name, "100 pipelined requests") == 0)
	{
		for (int i = 0; i < 100; ++i)
		{
			PUT_("GET %s HTTP/1.1\r\nHost: a\r\n\r\n", i % 2 == 0 ? "/healthz" : "/metrics");
		}
	}
#undef PUT_
	return n;
}

// Send, then read what comes until the server closes, or it has been quiet for 250 ms, or 3 s passed.
static size_t exchange(const char* bytes, size_t size, char* response, size_t cap, bool* closed)
{
	int fd = tcp_open(target.ws_port);
	if (fd < 0)
	{
		hostile_fail("http", "connect", "cannot connect to the HTTP port");
	}
	send_all(fd, bytes, size, 3000);
	size_t kept = 0;
	double deadline = now_ms() + 3000;
	*closed = false;
	while (now_ms() < deadline)
	{
		size_t got = 0;
		*closed = read_until_closed(fd, response + kept, cap - kept, &got, 250);
		kept += got;
		if (*closed || got == 0)
		{
			break;
		}
	}
	close(fd);
	response[kept < cap ? kept : cap - 1] = '\0';
	return kept;
}

void attack_http(void)
{
	family f;
	family_begin(&f, "http");
	static char generated[64 * 1024];
	static char response[256 * 1024];
	int closed_without_answer = 0;
	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); ++i)
	{
		const http_attack* a = attacks + i;
		const char* bytes = a->bytes;
		size_t size = a->size != 0 ? a->size : (bytes != NULL ? strlen(bytes) : 0);
		if (bytes == NULL)
		{
			size = generate(a->name, generated, sizeof(generated));
			bytes = generated;
		}
		bool closed = false;
		size_t got = exchange(bytes, size, response, sizeof(response), &closed);
		int status = 0;
		if (got == 0 || sscanf(response, "HTTP/1.1 %d", &status) != 1)
		{
			closed_without_answer += 1;
		}
		// No traversal reaches outside the web root.
		if (strstr(response, "root:") != NULL)
		{
			hostile_fail("http", a->name, "a file from outside the web root was served");
		}
		check_alive(&f, a->name);
	}
	// The file mount still serves what it should, and /healthz is still exact.
	char body[256];
	if (http_get(target.ws_port, "/index.html", body, sizeof(body)) != 200 || strstr(body, "hostile") == NULL)
	{
		hostile_fail("http", "after the attacks", "the web root's index.html is no longer served");
	}
	figure("http_closed_without_answer=%d", closed_without_answer);
	family_end(&f);
}
