// Logs in logfmt: ts=2024-05-01T12:00:00.123Z level=info msg="listening" transport=tcp port=7420
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static log_level threshold = LOG_INFO;

void log_set_level(log_level level)
{
	threshold = level;
}

log_level log_get_level(void)
{
	return threshold;
}

static const char* const level_names[] = { "debug", "info", "warn", "error" };

const char* log_level_name(log_level level)
{
	return (int)level >= 0 && level <= LOG_ERROR ? level_names[level] : "info";
}

bool log_parse_level(const char* text, log_level* out)
{
	for (int i = 0; i <= (int)LOG_ERROR; ++i)
	{
		if (strcmp(text, level_names[i]) == 0)
		{
			*out = (log_level)i;
			return true;
		}
	}
	return false;
}

const char* log_quote(char* buffer, size_t capacity, const char* text)
{
	if (capacity < 8)
	{
		if (capacity > 0)
		{
			buffer[0] = '\0';
		}
		return buffer;
	}
	bool plain = text[0] != '\0';
	for (const char* p = text; *p != '\0' && plain; ++p)
	{
		unsigned char c = (unsigned char)*p;
		plain = c > ' ' && c < 0x7f && c != '"' && c != '=' && c != '\\';
	}
	size_t n = 0;
	size_t room = capacity - 6; // space for an escape, the closing quote, "..." is not needed
	if (!plain)
	{
		buffer[n++] = '"';
	}
	for (const char* p = text; *p != '\0' && n < room; ++p)
	{
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\')
		{
			buffer[n++] = '\\';
			buffer[n++] = (char)c;
		}
		else if (c < ' ' || c >= 0x7f)
		{
			n += (size_t)snprintf(buffer + n, capacity - n, "\\x%02x", c);
		}
		else
		{
			buffer[n++] = (char)c;
		}
	}
	if (!plain)
	{
		buffer[n++] = '"';
	}
	buffer[n] = '\0';
	return buffer;
}

void log_write(log_level level, const char* msg, const char* fields, ...)
{
	if (level < threshold)
	{
		return;
	}
	char line[2048];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct tm utc;
	gmtime_r(&now.tv_sec, &utc);
	int n = snprintf(line, sizeof(line), "ts=%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ level=%s msg=\"%s\"",
					 utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
					 now.tv_nsec / 1000000L, log_level_name(level), msg);
	if (n < 0)
	{
		return;
	}
	size_t used = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	if (fields != NULL && fields[0] != '\0' && used + 2 < sizeof(line))
	{
		line[used++] = ' ';
		va_list args;
		va_start(args, fields);
		int m = vsnprintf(line + used, sizeof(line) - used, fields, args);
		va_end(args);
		if (m > 0)
		{
			used += (size_t)m < sizeof(line) - used ? (size_t)m : sizeof(line) - used - 1;
		}
	}
	line[used++] = '\n';
	fwrite(line, 1, used, stderr);
}
