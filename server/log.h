// Logs: one line per event on stderr, `ts=... level=... msg=... key=value ...`, readable by people and
// by log collectors (logfmt). Thread-safe (each line is written with one call).
#ifndef SINEW_SERVER_LOG_H
#define SINEW_SERVER_LOG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum log_level
{
	LOG_DEBUG = 0,
	LOG_INFO = 1,
	LOG_WARN = 2,
	LOG_ERROR = 3,
} log_level;

void log_set_level(log_level level);
log_level log_get_level(void);
// "debug", "info", "warn" or "error".
bool log_parse_level(const char* text, log_level* out);
const char* log_level_name(log_level level);

// Write one line: msg is a short fixed phrase, fields a printf format of key=value pairs (may be "").
void log_write(log_level level, const char* msg, const char* fields, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

#define log_debug(...) log_write(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_write(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_write(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_write(LOG_ERROR, __VA_ARGS__)

// A value that came from outside, made safe for a key=value line: quoted when it holds spaces, quotes,
// '=' or nothing, with quotes, backslashes and non-printable bytes escaped, cut to fit. Returns buffer.
const char* log_quote(char* buffer, size_t capacity, const char* text);

#endif
