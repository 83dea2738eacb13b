// The wire's error codes: names, messages and the build-time check against proto/sinew.proto.
#include "errors.h"

#include "sinew.pb.h"

// Every core and server code must have the same value as its ErrorCode in the .proto.
#define CHECK_CORE_(name, value, message)                                                                              \
	_Static_assert((int)SN_ERR_##name == (int)sinew_v1_ErrorCode_ERR_##name, "core code " #name " drifted");
SN_ERRORS(CHECK_CORE_)
#undef CHECK_CORE_
#define CHECK_SERVER_(name, value, message)                                                                            \
	_Static_assert((int)SV_ERR_##name == (int)sinew_v1_ErrorCode_ERR_##name, "server code " #name " drifted");
SV_ERRORS(CHECK_SERVER_)
#undef CHECK_SERVER_

typedef struct code_entry
{
	int32_t value;
	const char* name;
	const char* message;
} code_entry;

static const code_entry codes[] = {
#define ENTRY_(name, value, message) { value, #name, message },
	SN_ERRORS(ENTRY_) SV_ERRORS(ENTRY_)
#undef ENTRY_
};

enum
{
	CODE_COUNT = (int)(sizeof(codes) / sizeof(codes[0]))
};

int sv_error_index(int32_t code)
{
	for (int i = 0; i < CODE_COUNT; ++i)
	{
		if (codes[i].value == code)
		{
			return i;
		}
	}
	return -1;
}

const char* sv_error_name(int32_t code)
{
	int i = sv_error_index(code);
	return i >= 0 ? codes[i].name : "UNKNOWN";
}

const char* sv_error_message(int32_t code)
{
	int i = sv_error_index(code);
	return i >= 0 ? codes[i].message : "unknown error code";
}

int sv_error_count(void)
{
	return CODE_COUNT;
}

int32_t sv_error_at(int index)
{
	return index >= 0 && index < CODE_COUNT ? codes[index].value : 0;
}
