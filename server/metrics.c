// Metrics counters and their Prometheus text rendering.
#include "metrics.h"

#include "command.h"
#include "errors.h"
#include "server.h"
#include "session.h"
#include "ws.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double metrics_step_bucket_bounds[METRICS_STEP_BUCKETS] = { 1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4,
																  1e-3, 5e-3, 1e-2, 5e-2, 1e-1, 1.0 };

int metrics_init(metrics* m)
{
	memset(m, 0, sizeof(*m));
	m->command_count = command_count();
	m->code_count = sv_error_count() + 1; // the last column counts codes outside both tables
	m->commands = calloc((size_t)m->command_count * (size_t)m->code_count, sizeof(uint64_t));
	return m->commands != NULL ? 0 : -1;
}

void metrics_free(metrics* m)
{
	free(m->commands);
	m->commands = NULL;
}

void metrics_count_command(metrics* m, int command_index, int32_t code)
{
	if (m->commands == NULL || command_index < 0 || command_index >= m->command_count)
	{
		return;
	}
	int c = sv_error_index(code);
	if (c < 0)
	{
		c = m->code_count - 1;
	}
	m->commands[(size_t)command_index * (size_t)m->code_count + (size_t)c] += 1;
}

void metrics_count_steps(metrics* m, uint32_t steps, double seconds)
{
	m->steps_total += steps;
	m->step_seconds_sum += seconds;
	double per_step = steps > 0 ? seconds / steps : 0.0;
	for (int b = 0; b < METRICS_STEP_BUCKETS; ++b)
	{
		if (per_step <= metrics_step_bucket_bounds[b])
		{
			m->step_buckets[b] += steps;
			return;
		}
	}
}

// A growing text buffer.
typedef struct text
{
	char* data;
	size_t size;
	size_t capacity;
	bool failed;
} text;

static void put(text* t, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void put(text* t, const char* format, ...)
{
	if (t->failed)
	{
		return;
	}
	for (;;)
	{
		va_list args;
		va_start(args, format);
		int n = vsnprintf(t->data + t->size, t->capacity - t->size, format, args);
		va_end(args);
		if (n < 0)
		{
			t->failed = true;
			return;
		}
		if ((size_t)n < t->capacity - t->size)
		{
			t->size += (size_t)n;
			return;
		}
		size_t capacity = 2 * t->capacity + (size_t)n;
		char* data = realloc(t->data, capacity);
		if (data == NULL)
		{
			t->failed = true;
			return;
		}
		t->data = data;
		t->capacity = capacity;
	}
}

static void header(text* t, const char* name, const char* type, const char* help)
{
	put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

// A label value from outside: backslash, quote and newline escaped, other control bytes dropped.
static void label_value(char* out, size_t cap, const char* in)
{
	size_t n = 0;
	for (; *in != '\0' && n + 3 < cap; ++in)
	{
		unsigned char c = (unsigned char)*in;
		if (c == '\\' || c == '"')
		{
			out[n++] = '\\';
			out[n++] = (char)c;
		}
		else if (c == '\n')
		{
			out[n++] = '\\';
			out[n++] = 'n';
		}
		else if (c >= ' ' && c != 0x7f)
		{
			out[n++] = (char)c;
		}
	}
	out[n] = '\0';
}

char* metrics_render(const server* srv, size_t* size)
{
	const metrics* m = &srv->metrics;
	text t = { malloc(8192), 0, 8192, false };
	if (t.data == NULL)
	{
		return NULL;
	}
	static const char* const transports[METRICS_TRANSPORTS] = { "tcp", "ws" };
	header(&t, "sinew_uptime_seconds", "gauge", "Seconds since the server started.");
	put(&t, "sinew_uptime_seconds %.3f\n", (double)(server_now_ns() - srv->start_ns) * 1e-9);
	header(&t, "sinew_connections", "gauge", "Open client connections by transport.");
	for (int i = 0; i < METRICS_TRANSPORTS; ++i)
	{
		put(&t, "sinew_connections{transport=\"%s\"} %lld\n", transports[i], (long long)m->connections_open[i]);
	}
	header(&t, "sinew_connections_total", "counter", "Client connections accepted by transport.");
	for (int i = 0; i < METRICS_TRANSPORTS; ++i)
	{
		put(&t, "sinew_connections_total{transport=\"%s\"} %llu\n", transports[i],
			(unsigned long long)m->connections_total[i]);
	}
	header(&t, "sinew_http_connections", "gauge",
		   "Connections the HTTP/WebSocket port holds (WebSocket sessions among them, and those with no session "
		   "yet).");
	put(&t, "sinew_http_connections %d\n", ws_connections(srv->ws));
	header(&t, "sinew_connections_refused_total", "counter",
		   "Connections closed at once because of max_connections or max_http_connections.");
	put(&t, "sinew_connections_refused_total %llu\n", (unsigned long long)m->connections_refused);
	header(&t, "sinew_receive_buffer_bytes", "gauge",
		   "Receive buffer bytes of all connections beyond the first 128 KiB of each (max_receive_bytes).");
	put(&t, "sinew_receive_buffer_bytes %zu\n", srv->receive_bytes);
	header(&t, "sinew_queued_command_bytes", "gauge", "Bytes of commands waiting for busy worlds (max_queued_bytes).");
	put(&t, "sinew_queued_command_bytes %zu\n", srv->queued_bytes);
	header(&t, "sinew_connection_yields_total", "counter",
		   "Times a connection used its share of a loop pass (max_commands_per_pass, max_bytes_per_pass, "
		   "max_pass_time_us) and waited for the next.");
	put(&t, "sinew_connection_yields_total %llu\n", (unsigned long long)m->connection_yields);
	header(&t, "sinew_sessions_closed_with_error_total", "counter",
		   "Sessions the server closed with a reason (protocol errors, slow readers, timeouts).");
	put(&t, "sinew_sessions_closed_with_error_total %llu\n", (unsigned long long)m->sessions_closed_with_error);
	header(&t, "sinew_worlds", "gauge", "Worlds hosted now.");
	put(&t, "sinew_worlds %d\n", srv->worlds.count);
	header(&t, "sinew_worlds_created_total", "counter", "Worlds created (including clones and the demo).");
	put(&t, "sinew_worlds_created_total %llu\n", (unsigned long long)m->worlds_created);
	header(&t, "sinew_worlds_diverged_total", "counter", "Worlds whose state blew up numerically.");
	put(&t, "sinew_worlds_diverged_total %llu\n", (unsigned long long)m->worlds_diverged);
	header(&t, "sinew_steps_total", "counter", "World steps taken.");
	put(&t, "sinew_steps_total %llu\n", (unsigned long long)m->steps_total);
	header(&t, "sinew_step_seconds", "histogram", "Wall time of one world step.");
	uint64_t cumulative = 0;
	for (int b = 0; b < METRICS_STEP_BUCKETS; ++b)
	{
		cumulative += m->step_buckets[b];
		put(&t, "sinew_step_seconds_bucket{le=\"%g\"} %llu\n", metrics_step_bucket_bounds[b],
			(unsigned long long)cumulative);
	}
	put(&t, "sinew_step_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long)m->steps_total);
	put(&t, "sinew_step_seconds_sum %.9f\nsinew_step_seconds_count %llu\n", m->step_seconds_sum,
		(unsigned long long)m->steps_total);
	header(&t, "sinew_step_batches_total", "counter", "Batches of steps handed to the worker threads.");
	put(&t, "sinew_step_batches_total %llu\n", (unsigned long long)m->step_batches);
	header(&t, "sinew_frames_encoded_total", "counter", "State frames encoded (each shared by its subscribers).");
	put(&t, "sinew_frames_encoded_total %llu\n", (unsigned long long)m->frames_encoded);
	header(&t, "sinew_frames_sent_total", "counter", "State frames handed to client connections.");
	put(&t, "sinew_frames_sent_total %llu\n", (unsigned long long)m->frames_sent);
	header(&t, "sinew_frames_dropped_total", "counter",
		   "State frames replaced by a newer one before a slow client took them.");
	put(&t, "sinew_frames_dropped_total %llu\n", (unsigned long long)m->frames_dropped);
	header(&t, "sinew_messages_received_total", "counter", "Client messages received.");
	put(&t, "sinew_messages_received_total %llu\n", (unsigned long long)m->messages_in);
	header(&t, "sinew_bytes_received_total", "counter", "Bytes of client messages received.");
	put(&t, "sinew_bytes_received_total %llu\n", (unsigned long long)m->bytes_in);
	header(&t, "sinew_bytes_sent_total", "counter", "Bytes of server messages handed to connections.");
	put(&t, "sinew_bytes_sent_total %llu\n", (unsigned long long)m->bytes_out);
	header(&t, "sinew_lockstep_ticks_total", "counter", "Lockstep ticks stepped.");
	put(&t, "sinew_lockstep_ticks_total %llu\n", (unsigned long long)m->lockstep_ticks);
	header(&t, "sinew_lockstep_demotions_total", "counter", "Lockstep controllers demoted for missing a tick.");
	put(&t, "sinew_lockstep_demotions_total %llu\n", (unsigned long long)m->lockstep_demotions);
	header(&t, "sinew_realtime_lag_resets_total", "counter",
		   "Times a real-time world fell more than max_catchup_ms behind and gave up catching up.");
	put(&t, "sinew_realtime_lag_resets_total %llu\n", (unsigned long long)m->lag_resets);
	header(&t, "sinew_http_requests_total", "counter", "HTTP requests on the HTTP/WebSocket port.");
	put(&t, "sinew_http_requests_total %llu\n", (unsigned long long)m->http_requests);
	header(&t, "sinew_state_saves_total", "counter", "Kept worlds written to the state directory.");
	put(&t, "sinew_state_saves_total %llu\n", (unsigned long long)m->state_saves);
	header(&t, "sinew_state_save_failures_total", "counter", "State directory writes or removals that failed.");
	put(&t, "sinew_state_save_failures_total %llu\n", (unsigned long long)m->state_save_failures);
	header(&t, "sinew_state_worlds_restored", "gauge", "Worlds restored from the state directory at start.");
	put(&t, "sinew_state_worlds_restored %llu\n", (unsigned long long)m->state_worlds_restored);
	const asset_store* a = &srv->assets;
	header(&t, "sinew_asset_store_bytes", "gauge", "Bytes of model files and meshes in the asset store.");
	put(&t, "sinew_asset_store_bytes %zu\n", a->bytes);
	header(&t, "sinew_asset_store_entries", "gauge", "Files and meshes in the asset store.");
	put(&t, "sinew_asset_store_entries %d\n", a->count);
	header(&t, "sinew_asset_store_hits_total", "counter", "Asset store lookups that found the content.");
	put(&t, "sinew_asset_store_hits_total %llu\n", (unsigned long long)a->hits);
	header(&t, "sinew_asset_store_misses_total", "counter", "Asset store lookups that did not.");
	put(&t, "sinew_asset_store_misses_total %llu\n", (unsigned long long)a->misses);
	header(&t, "sinew_asset_store_evictions_total", "counter",
		   "Files and meshes dropped from the asset store to make room (least recently used, not in use).");
	put(&t, "sinew_asset_store_evictions_total %llu\n", (unsigned long long)a->evictions);
	header(&t, "sinew_asset_store_refusals_total", "counter", "Puts the asset store could not make room for.");
	put(&t, "sinew_asset_store_refusals_total %llu\n", (unsigned long long)a->refusals);
	header(&t, "sinew_commands_total", "counter", "Commands answered, by command and error code.");
	for (int c = 0; c < m->command_count; ++c)
	{
		for (int e = 0; e < m->code_count; ++e)
		{
			uint64_t n = m->commands[(size_t)c * (size_t)m->code_count + (size_t)e];
			if (n > 0)
			{
				put(&t, "sinew_commands_total{command=\"%s\",code=\"%s\"} %llu\n", command_name(c),
					e < m->code_count - 1 ? sv_error_name(sv_error_at(e)) : "UNKNOWN", (unsigned long long)n);
			}
		}
	}
	header(&t, "sinew_client_outbox_bytes", "gauge", "Bytes waiting in each client's outbox (bounded).");
	for (int i = 0; i < srv->sessions.high; ++i)
	{
		const session* s = srv->sessions.items[i];
		if (s != NULL)
		{
			char name[2 * sizeof(s->name) + 2]; // every byte escaped still fits: never cut in a character
			label_value(name, sizeof(name), s->name);
			put(&t, "sinew_client_outbox_bytes{session=\"%llu\",client=\"%s\"} %zu\n", (unsigned long long)s->id, name,
				outbox_bytes(&s->out));
		}
	}
	header(&t, "sinew_client_frames_dropped_total", "counter", "State frames dropped for each connected client.");
	for (int i = 0; i < srv->sessions.high; ++i)
	{
		const session* s = srv->sessions.items[i];
		if (s != NULL)
		{
			char name[2 * sizeof(s->name) + 2]; // every byte escaped still fits: never cut in a character
			label_value(name, sizeof(name), s->name);
			put(&t, "sinew_client_frames_dropped_total{session=\"%llu\",client=\"%s\"} %llu\n",
				(unsigned long long)s->id, name, (unsigned long long)s->out.frames_dropped);
		}
	}
	if (t.failed)
	{
		free(t.data);
		return NULL;
	}
	*size = t.size;
	return t.data;
}
