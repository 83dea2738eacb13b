// Options and limits: one table for the options, the SV_LIMITS table for the limits; the flag and the
// environment variable of each come from its name.
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum option_kind
{
	OPT_STRING,
	OPT_PORT,
	OPT_INT,
	OPT_FLAG_OFF, // a flag without value that sets a bool to false (env: 1/true/yes)
	OPT_FLAG_ON,  // a flag without value that sets a bool to true (env: 1/true/yes)
	OPT_LEVEL,
} option_kind;

typedef struct option_def
{
	const char* flag; // without the leading "--"
	const char* env;
	option_kind kind;
	size_t offset;
	size_t size; // for strings
	const char* value_name;
	const char* help;
} option_def;

#define STR_(field) offsetof(server_config, field), sizeof(((server_config*)0)->field)
#define VAL_(field) offsetof(server_config, field), 0

static const option_def options[] = {
	{ "host", "SINEW_HOST", OPT_STRING, STR_(host), "ADDR", "listen address of both listeners (default 127.0.0.1)" },
	{ "tcp-port", "SINEW_TCP_PORT", OPT_PORT, VAL_(tcp_port), "PORT",
	  "TCP port for varint-delimited protobuf (default 7420; 0: any free port)" },
	{ "ws-port", "SINEW_WS_PORT", OPT_PORT, VAL_(ws_port), "PORT",
	  "HTTP and WebSocket port: /healthz, /metrics, the dashboard, WebSocket subprotocol sinew.v1 "
	  "(default 7421; 0: any free port; -1: off)" },
	{ "port-file", "SINEW_PORT_FILE", OPT_STRING, STR_(port_file), "PATH",
	  "write \"tcp=PORT\" and \"ws=PORT\" lines there once both listeners are bound (default: none)" },
	{ "token", "SINEW_TOKEN", OPT_STRING, STR_(token), "TOKEN",
	  "require this token at the handshake (default: none; prefer the variable to keep it out of ps)" },
	{ "web-root", "SINEW_WEB_ROOT", OPT_STRING, STR_(web_root), "DIR",
	  "directory served at / on the HTTP port (the dashboard), e.g. build/release/clients/web/dist; default: "
	  "found beside sinewd (../clients/web/dist of its build tree, ../share/sinew/web of an install; the log "
	  "says where it looked); none: 404" },
	{ "state-dir", "SINEW_STATE_DIR", OPT_STRING, STR_(state_dir), "DIR",
	  "kept worlds are written there (every state_snapshot_interval_ms and at shutdown) and restored at start "
	  "with their names and ids (default: none; created if missing)" },
	{ "model-path", "SINEW_MODEL_PATH", OPT_STRING, STR_(model_path), "DIRS",
	  "colon-separated folders (like ROS_PACKAGE_PATH) where LoadUrdf finds models named by clients "
	  "(package://NAME/PATH or NAME/PATH) and the package:// mesh files of the URDFs it loads (default: none; "
	  "the container's models volume)" },
	{ "no-demo", "SINEW_NO_DEMO", OPT_FLAG_OFF, VAL_(demo), NULL, "do not create the demo world at start" },
	{ "demo-model", "SINEW_DEMO_MODEL", OPT_STRING, STR_(demo_model), "URDF",
	  "the robot of the demo world, moved by its drives in a slow motion (default: the built-in sinew_arm picking "
	  "and placing a box)" },
	{ "allow-demo-destroy", "SINEW_ALLOW_DEMO_DESTROY", OPT_FLAG_ON, VAL_(allow_demo_destroy), NULL,
	  "let clients destroy the demo world (default: DestroyWorld on it is refused, ERR_PROTECTED)" },
	{ "log-level", "SINEW_LOG_LEVEL", OPT_LEVEL, VAL_(log_level), "LEVEL",
	  "debug, info, warn or error (default info)" },
	{ "workers", "SINEW_WORKERS", OPT_INT, VAL_(workers), "N", "threads that step worlds (default 0: one per core)" },
};

enum
{
	OPTION_COUNT = (int)(sizeof(options) / sizeof(options[0]))
};

typedef struct limit_def
{
	const char* name;
	size_t offset;
	int64_t def;
	int64_t lo;
	int64_t hi;
	const char* unit;
	const char* reason;
} limit_def;

static const limit_def limits[] = {
#define LIMIT_ROW_(name, def, lo, hi, unit, reason) { #name, offsetof(server_limits, name), def, lo, hi, unit, reason },
	SV_LIMITS(LIMIT_ROW_)
#undef LIMIT_ROW_
};

enum
{
	LIMIT_COUNT = (int)(sizeof(limits) / sizeof(limits[0]))
};

void config_default(server_config* config)
{
	memset(config, 0, sizeof(*config));
	snprintf(config->host, sizeof(config->host), "%s", "127.0.0.1");
	config->tcp_port = 7420;
	config->ws_port = 7421;
	config->demo = true;
	config->log_level = LOG_INFO;
	config->workers = 0;
	for (int i = 0; i < LIMIT_COUNT; ++i)
	{
		*(int64_t*)((char*)&config->limits + limits[i].offset) = limits[i].def;
	}
}

// "max_message_bytes" -> "max-message-bytes" or "SINEW_MAX_MESSAGE_BYTES".
static void limit_flag(const char* name, char* out, size_t cap)
{
	size_t n = 0;
	for (; name[n] != '\0' && n + 1 < cap; ++n)
	{
		out[n] = name[n] == '_' ? '-' : name[n];
	}
	out[n] = '\0';
}

static void limit_env(const char* name, char* out, size_t cap)
{
	int n = snprintf(out, cap, "SINEW_");
	for (size_t i = 0; name[i] != '\0' && (size_t)n + 1 < cap; ++i)
	{
		out[n++] = (char)toupper((unsigned char)name[i]);
	}
	out[n] = '\0';
}

static bool parse_int64(const char* text, int64_t* out)
{
	if (text == NULL || text[0] == '\0')
	{
		return false;
	}
	errno = 0;
	char* end = NULL;
	long long v = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0')
	{
		return false;
	}
	*out = (int64_t)v;
	return true;
}

static bool set_option(server_config* config, const option_def* o, const char* value, const char* source, char* error,
					   size_t cap)
{
	void* field = (char*)config + o->offset;
	int64_t v = 0;
	switch (o->kind)
	{
		case OPT_STRING:
			if (strlen(value) >= o->size)
			{
				snprintf(error, cap, "%s: value too long (at most %zu bytes)", source, o->size - 1);
				return false;
			}
			snprintf(field, o->size, "%s", value);
			return true;
		case OPT_PORT:
			if (!parse_int64(value, &v) || v < -1 || v > 65535)
			{
				snprintf(error, cap, "%s: expected a port in [0, 65535] (or -1: off), got \"%s\"", source, value);
				return false;
			}
			*(int*)field = (int)v;
			return true;
		case OPT_INT:
			if (!parse_int64(value, &v) || v < 0 || v > 1024)
			{
				snprintf(error, cap, "%s: expected an integer in [0, 1024], got \"%s\"", source, value);
				return false;
			}
			*(int*)field = (int)v;
			return true;
		case OPT_FLAG_OFF:
		case OPT_FLAG_ON:
			if (strcmp(value, "1") == 0 || strcmp(value, "true") == 0 || strcmp(value, "yes") == 0)
			{
				*(bool*)field = o->kind == OPT_FLAG_ON;
			}
			else if (strcmp(value, "0") == 0 || strcmp(value, "false") == 0 || strcmp(value, "no") == 0 ||
					 value[0] == '\0')
			{
				*(bool*)field = o->kind == OPT_FLAG_OFF;
			}
			else
			{
				snprintf(error, cap, "%s: expected 1/true/yes or 0/false/no, got \"%s\"", source, value);
				return false;
			}
			return true;
		case OPT_LEVEL:
			if (!log_parse_level(value, (log_level*)field))
			{
				snprintf(error, cap, "%s: expected debug, info, warn or error, got \"%s\"", source, value);
				return false;
			}
			return true;
	}
	return false;
}

static bool set_limit(server_config* config, const limit_def* l, const char* value, const char* source, char* error,
					  size_t cap)
{
	int64_t v = 0;
	if (!parse_int64(value, &v) || v < l->lo || v > l->hi)
	{
		snprintf(error, cap, "%s: expected an integer in [%lld, %lld] %s, got \"%s\"", source, (long long)l->lo,
				 (long long)l->hi, l->unit, value);
		return false;
	}
	*(int64_t*)((char*)&config->limits + l->offset) = v;
	return true;
}

bool config_from_env(server_config* config, char* error, size_t cap)
{
	for (int i = 0; i < OPTION_COUNT; ++i)
	{
		const char* value = getenv(options[i].env);
		if (value != NULL && !set_option(config, options + i, value, options[i].env, error, cap))
		{
			return false;
		}
	}
	for (int i = 0; i < LIMIT_COUNT; ++i)
	{
		char env[96];
		limit_env(limits[i].name, env, sizeof(env));
		const char* value = getenv(env);
		if (value != NULL && !set_limit(config, limits + i, value, env, error, cap))
		{
			return false;
		}
	}
	return true;
}

int config_from_args(server_config* config, int argc, char** argv, FILE* out, char* error, size_t cap)
{
	for (int a = 1; a < argc; ++a)
	{
		const char* arg = argv[a];
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
		{
			config_print_help(out);
			return 1;
		}
		if (strncmp(arg, "--", 2) != 0)
		{
			snprintf(error, cap, "unexpected argument \"%s\" (see --help)", arg);
			return -1;
		}
		// --name=value or --name value
		char name[96];
		const char* value = NULL;
		const char* eq = strchr(arg + 2, '=');
		size_t len = eq != NULL ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		if (len >= sizeof(name))
		{
			snprintf(error, cap, "unknown flag \"%s\" (see --help)", arg);
			return -1;
		}
		memcpy(name, arg + 2, len);
		name[len] = '\0';
		if (eq != NULL)
		{
			value = eq + 1;
		}
		bool found = false;
		for (int i = 0; i < OPTION_COUNT && !found; ++i)
		{
			if (strcmp(name, options[i].flag) != 0)
			{
				continue;
			}
			found = true;
			if (options[i].kind == OPT_FLAG_OFF || options[i].kind == OPT_FLAG_ON)
			{
				if (!set_option(config, options + i, value != NULL ? value : "1", arg, error, cap))
				{
					return -1;
				}
				continue;
			}
			if (value == NULL)
			{
				if (a + 1 >= argc)
				{
					snprintf(error, cap, "--%s needs a value (%s)", name, options[i].value_name);
					return -1;
				}
				value = argv[++a];
			}
			if (!set_option(config, options + i, value, arg, error, cap))
			{
				return -1;
			}
		}
		for (int i = 0; i < LIMIT_COUNT && !found; ++i)
		{
			char flag[96];
			limit_flag(limits[i].name, flag, sizeof(flag));
			if (strcmp(name, flag) != 0)
			{
				continue;
			}
			found = true;
			if (value == NULL)
			{
				if (a + 1 >= argc)
				{
					snprintf(error, cap, "--%s needs a value", name);
					return -1;
				}
				value = argv[++a];
			}
			if (!set_limit(config, limits + i, value, arg, error, cap))
			{
				return -1;
			}
		}
		if (!found)
		{
			snprintf(error, cap, "unknown flag \"--%s\" (see --help)", name);
			return -1;
		}
	}
	return 0;
}

void config_print_help(FILE* out)
{
	fprintf(out,
			"usage: sinewd [OPTION]...\n"
			"Sinew physics server: hosts worlds for many clients over TCP (varint-delimited protobuf,\n"
			"proto/sinew.proto) and WebSocket (subprotocol sinew.v1), serves /healthz and /metrics.\n"
			"With no arguments it listens on 127.0.0.1 (TCP 7420, HTTP/WebSocket 7421) with a demo world.\n"
			"Every option can also be set by the environment variable shown; flags win.\n\n"
			"Options:\n");
	for (int i = 0; i < OPTION_COUNT; ++i)
	{
		char left[64];
		snprintf(left, sizeof(left), "--%s%s%s", options[i].flag, options[i].value_name != NULL ? " " : "",
				 options[i].value_name != NULL ? options[i].value_name : "");
		fprintf(out, "  %-24s %s\n  %-24s   [%s]\n", left, options[i].help, "", options[i].env);
	}
	fprintf(out, "  %-24s %s\n", "--help", "print this help and exit");
	fprintf(out, "\nLimits (server/server_limits.h; each --NAME VALUE or SINEW_NAME):\n");
	for (int i = 0; i < LIMIT_COUNT; ++i)
	{
		char flag[96], env[96];
		limit_flag(limits[i].name, flag, sizeof(flag));
		limit_env(limits[i].name, env, sizeof(env));
		fprintf(out, "  --%s N   [%s] default %lld %s, range [%lld, %lld]\n      %s\n", flag, env,
				(long long)limits[i].def, limits[i].unit, (long long)limits[i].lo, (long long)limits[i].hi,
				limits[i].reason);
	}
	fprintf(out,
			"\nSignals: SIGINT and SIGTERM shut down cleanly within shutdown_grace_ms (stop accepting, tell\n"
			"clients, finish in-flight replies: a long Step stops between steps and answers what it did; exit 0).\n");
}

bool config_absolute_model_path(server_config* config)
{
	char out[sizeof(config->model_path)];
	size_t used = 0;
	const char* s = config->model_path;
	while (*s != '\0')
	{
		const char* colon = strchr(s, ':');
		size_t n = colon != NULL ? (size_t)(colon - s) : strlen(s);
		char entry[sizeof(config->model_path)];
		memcpy(entry, s, n);
		entry[n] = '\0';
		char* resolved = n > 0 ? realpath(entry, NULL) : NULL;
		const char* use = resolved != NULL ? resolved : entry;
		if (n > 0)
		{
			int w = snprintf(out + used, sizeof(out) - used, "%s%s", used > 0 ? ":" : "", use);
			if (w < 0 || (size_t)w >= sizeof(out) - used)
			{
				free(resolved);
				return false;
			}
			used += (size_t)w;
		}
		free(resolved);
		s += n;
		if (*s == ':')
		{
			++s;
		}
	}
	out[used] = '\0';
	memcpy(config->model_path, out, used + 1);
	return true;
}

bool config_find_web_root(server_config* config, const char* exe, char* looked, size_t cap)
{
	static const char* const below[] = { "clients/web/dist", "share/sinew/web" };
	looked[0] = '\0';
	const char* slash = exe != NULL ? strrchr(exe, '/') : NULL;
	if (slash == NULL)
	{
		snprintf(looked, cap, "nowhere (sinewd's own path is unknown)");
		return false;
	}
	// The folder above the one sinewd is in: build/<flavour> for build/<flavour>/server/sinewd, the
	// prefix for <prefix>/bin/sinewd.
	size_t dir = (size_t)(slash - exe);
	size_t used = 0;
	for (size_t i = 0; i < sizeof(below) / sizeof(below[0]); ++i)
	{
		char candidate[sizeof(config->web_root)];
		char index[sizeof(config->web_root) + 16];
		int n = snprintf(candidate, sizeof(candidate), "%.*s/../%s", (int)dir, exe, below[i]);
		if (n < 0 || (size_t)n >= sizeof(candidate))
		{
			continue;
		}
		int m = snprintf(looked + used, cap - used, "%s%s", used > 0 ? ", " : "", candidate);
		used = m > 0 && used + (size_t)m < cap ? used + (size_t)m : used;
		snprintf(index, sizeof(index), "%s/index.html", candidate);
		FILE* f = fopen(index, "r");
		if (f != NULL)
		{
			fclose(f);
			char* resolved = realpath(candidate, NULL);
			snprintf(config->web_root, sizeof(config->web_root), "%s",
					 resolved != NULL && strlen(resolved) < sizeof(config->web_root) ? resolved : candidate);
			free(resolved);
			return true;
		}
	}
	return false;
}
