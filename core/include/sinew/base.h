// Sinew core: version, typed errors, allocator hook.
//
// Every public call that can fail returns an sn_error. The codes, their names and their messages come
// from one X-macro table (SN_ERRORS) so the enum and the strings cannot drift apart. A call that fails
// leaves the world exactly as it was; world-scoped calls also record a one-line detail that names the
// offending field and value (sn_world_last_error_detail).
#ifndef SINEW_BASE_H
#define SINEW_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SN_VERSION_MAJOR 0
#define SN_VERSION_MINOR 1
#define SN_VERSION_PATCH 0

// X(name, value, message). Values are stable: they travel on the wire (see proto/).
#define SN_ERRORS(X)                                                                                                   \
	X(OK, 0, "ok")                                                                                                     \
	X(INVALID_ARGUMENT, -1, "an argument is missing or out of its allowed range")                                      \
	X(NOT_FINITE, -2, "a number is NaN or infinite")                                                                   \
	X(INVALID_ID, -3, "the id does not name a live object of this world")                                              \
	X(NON_POSITIVE_MASS, -4, "mass must be positive and finite")                                                       \
	X(INERTIA_NOT_PD, -5, "inertia tensor must be symmetric and positive definite")                                    \
	X(ZERO_AXIS, -6, "an axis or quaternion has zero length")                                                          \
	X(LIMITS_ORDER, -7, "lower limit is above upper limit")                                                            \
	X(SELF_JOINT, -8, "a joint must connect two different bodies (or a body and the world)")                           \
	X(WRONG_TYPE, -9, "the object is not of the type this call needs")                                                 \
	X(NEGATIVE_VALUE, -10, "a value that must be non-negative is negative")                                            \
	X(NO_MEMORY, -11, "out of memory")                                                                                 \
	X(CAPACITY, -12, "a capacity limit was reached")                                                                   \
	X(DIVERGED, -13, "the world's state is no longer finite; reset or restore it")                                     \
	X(BAD_SNAPSHOT, -14, "the snapshot is malformed, truncated or of another version")                                 \
	X(UNSUPPORTED, -15, "not supported by this solver or configuration")                                               \
	X(TOPOLOGY, -16, "the articulation topology is invalid (parent, cycle, root or dof index)")                        \
	X(BUSY, -17, "the object is in use and cannot be changed now")

typedef enum sn_error
{
#define SN_ERROR_ENUM_(name, value, message) SN_ERR_##name = (value),
	SN_ERRORS(SN_ERROR_ENUM_)
#undef SN_ERROR_ENUM_
} sn_error;

// Name of an error code without prefix, for example "NOT_FINITE". Never NULL.
const char* sn_error_name(sn_error error);

// One-line human message for an error code. Never NULL.
const char* sn_error_message(sn_error error);

// Allocation hook. alloc returns NULL on failure; free receives the size that was allocated.
typedef struct sn_allocator
{
	void* (*alloc)(void* context, size_t size);
	void (*free)(void* context, void* pointer, size_t size);
	void* context;
} sn_allocator;

// Library version as "major.minor.patch".
const char* sn_version_string(void);

#ifdef __cplusplus
}
#endif

#endif
