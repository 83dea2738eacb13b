// Fixed joint (weld): all six coordinates of joint.h locked. Rows: C_k = d . a_k for k = x, y, z and
// C = (theta, s_y, s_z) of the relative rotation, each with the Jacobian derived in joint.h. With a
// lock softness the weld yields like a six-axis spring (static deflection F / k on each axis).
#include "joint/joint.h"
#include "world.h"

#include "sinew/joint.h"

#include <string.h>

sn_fixed_joint_def sn_default_fixed_joint_def(void)
{
	sn_fixed_joint_def def;
	def.base = sn_default_joint_base();
	return def;
}

sn_error sn_create_fixed_joint(sn_world* world, const sn_fixed_joint_def* def, sn_joint_id* out_id)
{
	if (def == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create fixed joint: def is NULL");
	}
	joint config;
	memset(&config, 0, sizeof(config));
	return joint_create(world, SN_JOINT_FIXED, &def->base, &config, out_id);
}
