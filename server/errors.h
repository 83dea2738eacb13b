// Error codes on the wire: the core's sn_error values (0 to -17, SN_ERRORS in core/include/sinew/base.h)
// and the server's own codes (from -100 down), each from one X-macro table that yields the enum, the name
// and the message. errors.c checks both tables against the ErrorCode enum of proto/sinew.proto at build
// time, so the wire and the code cannot drift apart.
#ifndef SINEW_SERVER_ERRORS_H
#define SINEW_SERVER_ERRORS_H

#include "sinew/base.h"

#include <stdint.h>

// X(name, value, message). Values are stable: they travel on the wire.
#define SV_ERRORS(X)                                                                                                   \
	X(BAD_MESSAGE, -100, "the message could not be decoded")                                                           \
	X(NOT_HANDSHAKEN, -101, "the first message of a session must be a handshake")                                      \
	X(ALREADY_HANDSHAKEN, -102, "the session has already shaken hands")                                                \
	X(WRONG_VERSION, -103, "the protocol version is not supported")                                                    \
	X(UNAUTHORISED, -104, "a token is required and the one given is missing or wrong")                                 \
	X(FORBIDDEN_BY_ROLE, -105, "the session's role does not allow this command")                                       \
	X(LIMIT_REACHED, -106, "a server limit was reached")                                                               \
	X(UNKNOWN_COMMAND, -107, "the message carries no command this server knows")                                       \
	X(UNKNOWN_WORLD, -108, "the world id does not name a live world")                                                  \
	X(UNKNOWN_SUBSCRIPTION, -109, "the id does not name a live subscription of this session")                          \
	X(WRONG_TIME_MODE, -110, "the command does not apply in the world's time mode")                                    \
	X(STALE_TICK, -111, "the lockstep input is not for the world's pending tick")                                      \
	X(MESSAGE_TOO_LARGE, -112, "the message is larger than the server's limit")                                        \
	X(SLOW_CLIENT, -113, "the client did not read what the server sent within the server's limit")                     \
	X(SHUTTING_DOWN, -114, "the server is shutting down")                                                              \
	X(TIMEOUT, -115, "the client took too long")                                                                       \
	X(INTERNAL, -116, "internal server error")                                                                         \
	X(NAME_TAKEN, -117, "another world on this server has that name")                                                  \
	X(PROTECTED, -118, "the world is protected from this command")                                                     \
	X(UNKNOWN_ASSET, -119, "no asset or mesh on this server has that content hash")

typedef enum sv_error
{
#define SV_ERROR_ENUM_(name, value, message) SV_ERR_##name = (value),
	SV_ERRORS(SV_ERROR_ENUM_)
#undef SV_ERROR_ENUM_
} sv_error;

// Name of a wire code without prefix ("NOT_FINITE", "UNKNOWN_WORLD"), core or server; "UNKNOWN" if none.
const char* sv_error_name(int32_t code);
// Message of a wire code, core or server. Never NULL.
const char* sv_error_message(int32_t code);
// Number of distinct codes (core and server) and the i-th one, for metrics.
int sv_error_count(void);
int32_t sv_error_at(int index);
// Index of a code in [0, sv_error_count()), or -1.
int sv_error_index(int32_t code);

#endif
