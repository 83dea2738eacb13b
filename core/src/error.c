// Error names and messages from the one SN_ERRORS table, and the other name tables of the public API.
#include "sinew/base.h"
#include "sinew/types.h"

#define SN_STR_(x) #x
#define SN_XSTR_(x) SN_STR_(x)

const char* sn_error_name(sn_error error)
{
	switch (error)
	{
#define SN_ERROR_NAME_(name, value, message)                                                                           \
	case SN_ERR_##name:                                                                                                \
		return #name;
		SN_ERRORS(SN_ERROR_NAME_)
#undef SN_ERROR_NAME_
	}
	return "UNKNOWN";
}

const char* sn_error_message(sn_error error)
{
	switch (error)
	{
#define SN_ERROR_MESSAGE_(name, value, message)                                                                        \
	case SN_ERR_##name:                                                                                                \
		return message;
		SN_ERRORS(SN_ERROR_MESSAGE_)
#undef SN_ERROR_MESSAGE_
	}
	return "unknown error code";
}

const char* sn_version_string(void)
{
	return SN_XSTR_(SN_VERSION_MAJOR) "." SN_XSTR_(SN_VERSION_MINOR) "." SN_XSTR_(SN_VERSION_PATCH);
}

const char* sn_solver_name(sn_solver solver)
{
	switch (solver)
	{
		case SN_SOLVER_PGS:
			return "pgs";
		case SN_SOLVER_TGS:
			return "tgs";
		case SN_SOLVER_XPBD:
			return "xpbd";
		case SN_SOLVER_DIRECT:
			return "direct";
		case SN_SOLVER_COUNT:
			break;
	}
	return "unknown";
}

const char* sn_joint_type_name(sn_joint_type type)
{
	switch (type)
	{
		case SN_JOINT_FIXED:
			return "fixed";
		case SN_JOINT_HINGE:
			return "hinge";
		case SN_JOINT_PRISMATIC:
			return "prismatic";
		case SN_JOINT_SPHERICAL:
			return "spherical";
		case SN_JOINT_DISTANCE:
			return "distance";
		case SN_JOINT_CYLINDRICAL:
			return "cylindrical";
		case SN_JOINT_SIX_AXIS:
			return "six_axis";
		case SN_JOINT_TYPE_COUNT:
			break;
	}
	return "unknown";
}
